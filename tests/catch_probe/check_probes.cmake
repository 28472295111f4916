# Run by the ctest catch_check_is_catchs (cmake/catch2.cmake): the control (LibTorch's headers
# after tests/catch.h) must compile, and the probe (a one-argument CHECK defined after it, as
# LibTorch's c10 does) must fail on Catch's guard in tests/catch.h.
foreach(probe control c10_check)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target embpriv_catch_probe_${probe}
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${probe}_status ${status})
  set(${probe}_output "${output}")
endforeach()
if(NOT control_status EQUAL 0)
  message(FATAL_ERROR "the control (LibTorch's headers after tests/catch.h) did not compile:\n${control_output}")
endif()
if(c10_check_status EQUAL 0)
  message(FATAL_ERROR "a one-argument CHECK defined after tests/catch.h compiled: Catch's CHECK is not guarded")
endif()
if(NOT c10_check_output MATCHES "macro \"CHECK\" passed 2 arguments, but takes just 1")
  message(FATAL_ERROR "the probe failed, but not on the guard of tests/catch.h:\n${c10_check_output}")
endif()
message(STATUS "a one-argument CHECK after tests/catch.h fails to compile; LibTorch's headers after it compile")
