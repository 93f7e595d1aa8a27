/* SPDX-License-Identifier: MIT */
/*
 * sym_int: declarations shared by the files of src/sym only; other modules
 * use sym.h.
 */
#ifndef MEMPRISM_SYM_INT_H
#define MEMPRISM_SYM_INT_H

/* Demangle an Itanium C++ name through a run-time lookup of __cxa_demangle
 * (see sym.c for why it is not linked). Returns a malloc'd string the caller
 * frees, or NULL if `name` is not mangled, cannot be demangled, or no
 * demangler is available. Thread-safe. */
char *sym_demangle(const char *name);

#endif /* MEMPRISM_SYM_INT_H */
