# Run by ctest (tests/layers/layers.cmake): builds the two probe targets and checks that the one
# whose folder may not see attacks/ fails on exactly that include, and that the control compiles.
foreach(probe downward upward)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target embpriv_probe_${probe}_include
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${probe}_status ${status})
  set(${probe}_output "${output}")
endforeach()
if(NOT downward_status EQUAL 0)
  message(FATAL_ERROR "the control (a target linking attacks) did not compile:\n${downward_output}")
endif()
if(upward_status EQUAL 0)
  message(FATAL_ERROR "a target linking only mechanisms compiled an include of attacks/: the layers are not enforced")
endif()
if(NOT upward_output MATCHES "attacks/nearest_rows\\.h: No such file or directory")
  message(FATAL_ERROR "the probe failed, but not on its include of attacks/:\n${upward_output}")
endif()
message(STATUS "an include of attacks/ from a target linking mechanisms fails to compile; the control compiles")
