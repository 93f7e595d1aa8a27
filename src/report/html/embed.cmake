# Turns the visual report's page head and script into C arrays (a header
# included by report_html.c), so the binary carries them and the HTML it
# writes needs nothing else. Run as: cmake -DOUT=... -P embed.cmake
set(dir ${CMAKE_CURRENT_LIST_DIR})
set(text "/* generated from src/report/html by embed.cmake: do not edit */\n")
foreach(pair "rp_html_head:head.html" "rp_html_script:report.js")
  string(REPLACE ":" ";" p ${pair})
  list(GET p 0 name)
  list(GET p 1 file)
  file(READ ${dir}/${file} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
  string(APPEND text "static const char ${name}[] = {\n${hex}0x00 };\n")
endforeach()
file(WRITE ${OUT}.tmp "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
