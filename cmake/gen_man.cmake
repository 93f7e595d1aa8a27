# SPDX-License-Identifier: MIT
# Writes memprism(1) and memprism-COMMAND(1) for every command into DIR,
# each from `memprism --man [COMMAND]` (src/cli/cli_man.c: the option
# tables the help comes from). cmake -DMEMPRISM=BIN -DDIR=DIR -P gen_man.cmake
execute_process(COMMAND ${MEMPRISM} --list-commands OUTPUT_VARIABLE cmds RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${MEMPRISM} --list-commands failed (${rc})")
endif()
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
string(REPLACE "\n" ";" cmds "${cmds}")
set(pages "")
foreach(c "" ${cmds})
  if(c STREQUAL "")
    set(page memprism.1)
  else()
    set(page memprism-${c}.1)
  endif()
  execute_process(COMMAND ${MEMPRISM} --man ${c} OUTPUT_FILE ${DIR}/${page} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${MEMPRISM} --man ${c} failed (${rc})")
  endif()
endforeach()
