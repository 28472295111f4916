# Catch2 for embpriv's tests: 2.x (Debian 12: <catch2/catch.hpp>) or 3.x (Debian 13 and upstream:
# <catch2/catch_all.hpp>); Catch2::Catch2 is the library without a main in both (tests/main.cpp
# is the main). tests/catch.h holds the difference in the API; catch_discover_tests (include(Catch))
# comes with both.
find_package(Catch2 REQUIRED)
if(Catch2_VERSION VERSION_GREATER_EQUAL 3)
  set(EMBPRIV_CATCH2_MAJOR 3)
else()
  set(EMBPRIV_CATCH2_MAJOR 2)
endif()
include(Catch)

# embpriv_catch2_tests(TARGET): TARGET's *_test.cpp files get tests/catch.h force-included before
# anything else (-include): Catch's CHECK, never LibTorch's, whatever a test file includes and in
# which order (tests/catch.h says why, and fails the build if another CHECK ever wins).
function(embpriv_catch2_tests target)
  target_link_libraries(${target} PRIVATE Catch2::Catch2)
  target_compile_definitions(${target} PRIVATE EMBPRIV_CATCH2_MAJOR=${EMBPRIV_CATCH2_MAJOR})
  get_target_property(sources ${target} SOURCES)
  foreach(source ${sources})
    if(source MATCHES "_test\\.cpp$")
      set_property(SOURCE ${source} APPEND PROPERTY COMPILE_OPTIONS -include ${PROJECT_SOURCE_DIR}/tests/catch.h)
    endif()
  endforeach()
endfunction()

# embpriv_catch2_probe(): the ctest catch_check_is_catchs, which compiles
# tests/catch_probe/check_macro_probe.cpp twice (targets outside `all`): LibTorch's headers after
# tests/catch.h must compile, and a c10-style one-argument CHECK after it must not.
function(embpriv_catch2_probe)
  set(probe_source ${PROJECT_SOURCE_DIR}/tests/catch_probe/check_macro_probe.cpp)
  foreach(probe control c10_check)
    add_library(embpriv_catch_probe_${probe} OBJECT EXCLUDE_FROM_ALL ${probe_source})
    target_link_libraries(embpriv_catch_probe_${probe} PRIVATE embpriv_core Catch2::Catch2)
    target_compile_definitions(embpriv_catch_probe_${probe} PRIVATE EMBPRIV_CATCH2_MAJOR=${EMBPRIV_CATCH2_MAJOR})
    target_compile_options(embpriv_catch_probe_${probe} PRIVATE "SHELL:-include ${PROJECT_SOURCE_DIR}/tests/catch.h")
  endforeach()
  target_compile_definitions(embpriv_catch_probe_c10_check PRIVATE EMBPRIV_PROBE_C10_CHECK)
  add_test(NAME catch_check_is_catchs
           COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR}
                   -P ${PROJECT_SOURCE_DIR}/tests/catch_probe/check_probes.cmake)
endfunction()
