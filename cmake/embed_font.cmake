# cmake -DIN=<font file or empty> -DOUT=<file.cpp> -P embed_font.cmake
# Writes the UI font as a C++ byte array (the web build has no filesystem and the desktop app must work
# with no files beside it). An empty or missing IN gives a zero-size font: ImGui's built-in one is used.
if(IN AND EXISTS "${IN}")
  file(READ "${IN}" hex HEX)
  string(LENGTH "${hex}" n)
  math(EXPR size "${n} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){32})" "\\1\n" bytes "${bytes}")
  get_filename_component(name "${IN}" NAME)
  set(body "// ${name}, embedded from the Debian package that ships it (not stored in the repository).\nextern const unsigned char kUiFontData[] = {\n${bytes}\n};\nextern const unsigned int kUiFontSize = ${size};\n")
else()
  set(body "// No font file was found at configure time: ImGui's built-in font is used.\nextern const unsigned char kUiFontData[] = {0};\nextern const unsigned int kUiFontSize = 0;\n")
endif()
file(WRITE "${OUT}.tmp" "namespace vramcalc::ui {\n${body}}  // namespace vramcalc::ui\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
