# Header-only host libraries (nlohmann/json, Catch2 v2).
# Natively they come through find_package. Under Emscripten find_package searches only the wasm
# sysroot, so we locate the headers on the host and expose *only their folders* (never /usr/include
# itself, whose glibc headers would clash with the wasm libc).
if(EMSCRIPTEN)
  find_path(VRAMCALC_NLOHMANN_INCLUDE nlohmann/json.hpp PATHS /usr/include /usr/local/include
            NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  set(_stage "${CMAKE_BINARY_DIR}/host_include")
  file(MAKE_DIRECTORY "${_stage}")
  file(COPY "${VRAMCALC_NLOHMANN_INCLUDE}/nlohmann" DESTINATION "${_stage}")
  add_library(vramcalc_json INTERFACE)
  target_include_directories(vramcalc_json SYSTEM INTERFACE "${_stage}")
  find_path(VRAMCALC_CATCH2_INCLUDE catch2/catch.hpp PATHS /usr/include /usr/local/include
            NO_CMAKE_FIND_ROOT_PATH)
  if(VRAMCALC_CATCH2_INCLUDE)
    file(COPY "${VRAMCALC_CATCH2_INCLUDE}/catch2" DESTINATION "${_stage}")
    add_library(vramcalc_catch2 INTERFACE)
    target_include_directories(vramcalc_catch2 SYSTEM INTERFACE "${_stage}")
  endif()
else()
  find_package(nlohmann_json 3.10 REQUIRED)
  add_library(vramcalc_json INTERFACE)
  target_link_libraries(vramcalc_json INTERFACE nlohmann_json::nlohmann_json)
  find_package(Catch2 2 QUIET)
  if(Catch2_FOUND)
    add_library(vramcalc_catch2 INTERFACE)
    target_link_libraries(vramcalc_catch2 INTERFACE Catch2::Catch2)
  endif()
endif()
