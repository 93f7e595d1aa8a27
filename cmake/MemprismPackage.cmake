# SPDX-License-Identifier: MIT
# The Debian package: `cmake --build build --target package` (or `cpack` in
# the build tree) writes memprism_VERSION_ARCH.deb from the same install
# rules `cmake --install` follows, installed under /usr. CPack's DEB
# generator rather than a debian/ directory: the package comes from the one
# build the tests run on, with no debhelper and no second build;
# dpkg-shlibdeps (dpkg-dev, which build-essential brings) finds the
# libraries the binaries link (libdw, libelf, libzstd, libpfm4, libsqlite3,
# ...). What it cannot see is declared here:
#  - clang-16: `memprism cc` runs the clang of the LLVM its pass plugin was
#    built against (the plugin loads into no other), and clang-16 brings
#    libc6-dev and the linker the instrumented programs link with;
#  - valgrind, Recommended: `record --source valgrind` runs memprism's tool
#    under the valgrind launcher of the very version whose core it links
#    (the launcher and core must agree; `memprism doctor` says when not),
#    and the tool's directory links to that package's preload and default
#    suppressions. Recommends, not Depends: the source is one of four, the
#    rest of memprism works without it, and valgrind with the libc6-dbg it
#    depends on is 89 MB installed: apt installs it by default, a user who asks for
#    --no-install-recommends gets memprism without that source.
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  return()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME memprism)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "object-relative memory profiler")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(MEMPRISM_PACKAGE_CONTACT "memprism maintainers <memprism@invalid>" CACHE STRING
  "The Debian package's Maintainer field")
set(CPACK_PACKAGE_CONTACT ${MEMPRISM_PACKAGE_CONTACT})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # memprism_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# (the shared library is memprism's own: dpkg-shlibdeps needs its folder
# to resolve nothing against it, but to know it is not missing)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
# (the summary is the first line; CPack indents these and turns the empty
# line into Debian's " .")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"memprism tells which data structure a program's memory accesses go to:
each heap allocation site, static variable, thread stack, mapped file,
section or named region, with loads, stores, bytes and the threads that
touched them; and, through a cache, TLB and page-walk model (or hardware
samples where there is a PMU), the DRAM requests, hit levels, TLB misses,
page walks and remote NUMA accesses per object.

memprism cc builds a program with inline access instrumentation (clang),
memprism gcc the same with gcc (through memprism's GCC plugin, where built);
memprism record --source valgrind records any binary under memprism's own
Valgrind tool; memprism report shows the objects.")

set(MP_DEB_DEPENDS "clang-16")
set(MP_DEB_RECOMMENDS "")
if(MEMPRISM_VALGRIND)
  # the Debian version of the valgrind the tool was built against: its
  # epoch and upstream version, any Debian revision of it
  execute_process(COMMAND dpkg-query -W -f=\${Version} valgrind
    OUTPUT_VARIABLE MP_VALGRIND_DEB_VERSION ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(MP_VALGRIND_DEB_VERSION MATCHES "^(([0-9]+:)?${MP_VALGRIND_BUILT_VERSION})")
    set(v ${CMAKE_MATCH_1})
    set(MP_DEB_RECOMMENDS "valgrind (>= ${v}), valgrind (<< ${v}.~)")
  else()
    set(MP_DEB_RECOMMENDS "valgrind")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS ${MP_DEB_DEPENDS})
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS ${MP_DEB_RECOMMENDS})
# gcc: `memprism gcc` (its plugin, lib/memprism/memprism-gcc.so, loads
# into the gcc it was built for; another gcc gets the calls); libc6-dbg:
# names inside libc (README)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gcc, libc6-dbg")
include(CPack)
