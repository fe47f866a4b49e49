# cmake -P script (CTest "page: its wasm formats numbers without musl's printf, the JS API's module with it"):
# the page's snprintf and fprintf are web/printf_web.cpp's, so musl's printf_core and fmt_fp (and their
# 128-bit long double argument reader) stay out of its wasm. Each leaves a table of sign and "0x" prefixes
# in the data (musl 1.2.2, src/stdio/vfprintf.c); the JS API's module, which keeps musl's printf, shows the
# texts are there to be found. Input: DIST, the page's dist folder.
foreach(_mark "-\\+   0X0x"                    # printf_core's prefixes
              "-0X\\+0X 0X-0x\\+0x 0x")        # fmt_fp's prefixes
  file(STRINGS "${DIST}/vramcalc.wasm" _page REGEX "${_mark}")
  file(STRINGS "${DIST}/vramcalc-api.wasm" _api REGEX "${_mark}")
  if(_page)
    message(FATAL_ERROR "the page's vramcalc.wasm holds musl's printf (its text \"${_mark}\"): a call of the page reaches musl's "
                        "snprintf, vsnprintf or fprintf instead of web/printf_web.cpp's")
  endif()
  if(NOT _api)
    message(FATAL_ERROR "vramcalc-api.wasm lacks musl's printf text \"${_mark}\": this check no longer finds what it looks for")
  endif()
endforeach()
