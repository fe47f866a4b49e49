# cmake -P script (CTest "page: no code of the page catches an exception"): the web page's wasm is built
# without exception handling (core/CMakeLists.txt), so a catch in code the page links would never run
# there: a throw aborts the page. Only what the page does not link may catch: the validation runner, the
# importer and the JS API's module (web/api.cpp guards each entry point), which keep WebAssembly's exception
# handling, and the other on-demand modules (web/*_module.cpp). Input: SRC, the repository root.
file(GLOB_RECURSE _files "${SRC}/core/src/*.cpp" "${SRC}/core/src/*.hpp" "${SRC}/core/include/*.hpp"
     "${SRC}/imgui_app/src/*.cpp" "${SRC}/imgui_app/src/*.hpp" "${SRC}/imgui_app/include/*.hpp" "${SRC}/web/*.cpp" "${SRC}/web/*.hpp")
set(_bad "")
foreach(f IN LISTS _files)
  if(f MATCHES "/core/src/(validation|imports)/" OR f MATCHES "/web/(api|[a-z_]+_module)[.]cpp$")
    continue()
  endif()
  file(STRINGS "${f}" _lines REGEX "(^|[^A-Za-z_])(catch|try)[ ]*[({]")
  foreach(l IN LISTS _lines)
    string(STRIP "${l}" l)
    if(NOT l MATCHES "^//")
      string(APPEND _bad "\n  ${f}: ${l}")
    endif()
  endforeach()
endforeach()
if(_bad)
  message(FATAL_ERROR "code the page links catches exceptions, which the page's wasm never does (a throw aborts it):${_bad}")
endif()
