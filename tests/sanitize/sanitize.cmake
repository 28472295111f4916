# The sanitizer build (EMBPRIV_SANITIZE=ON, `make sanitize`): the tests of the layers core,
# platform, mechanisms, data and metrics, in one binary built with -fsanitize=address,undefined (flags set
# in CMakeLists.txt before the layers). Tests that need a higher layer (models) are left out.
# Cold build + run measured at 20 min on 2 cores shared with two fuzzers and other builds
# (CCACHE_DISABLE=1 make sanitize); the run itself is about 2.5 min.
include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/catch2.cmake)  # Catch2 2.x or 3.x
set(sanitized_tests "")
foreach(layer core platform mechanisms data metrics)
  file(GLOB_RECURSE layer_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/${layer}/*_test.cpp)
  list(APPEND sanitized_tests ${layer_tests})
endforeach()
list(FILTER sanitized_tests EXCLUDE REGEX "/(llama2c_tokenizer_test|client_server_flow_test)\\.cpp$")
# The mechanism tests name their mechanisms in YAML: the one adapter that reads YAML into
# mechanism keys (experiments/engine/mechanism_yaml.cpp) is compiled in, with yaml-cpp.
add_executable(embpriv_sanitize_tests tests/main.cpp ${sanitized_tests}
               ${CMAKE_CURRENT_SOURCE_DIR}/experiments/engine/mechanism_yaml.cpp)
target_link_libraries(embpriv_sanitize_tests PRIVATE embpriv_core embpriv_platform embpriv_mechanisms embpriv_mechanisms_obfuslm embpriv_data
                      embpriv_metrics yaml-cpp)
embpriv_catch2_tests(embpriv_sanitize_tests)
target_include_directories(embpriv_sanitize_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})  # tests/*.h
include(${CMAKE_CURRENT_SOURCE_DIR}/cmake/find_python.cmake)
embpriv_test_python()  # EMBPRIV_TEST_PYTHON: the python3 of the reference scripts
target_compile_options(embpriv_sanitize_tests PRIVATE ${EMBPRIV_WARNINGS})
target_compile_definitions(embpriv_sanitize_tests PRIVATE EMBPRIV_TEST_PYTHON="${EMBPRIV_TEST_PYTHON}")
