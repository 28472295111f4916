# ctest device_check_cpu: scripts/device/check.sh --cpu on the build folder as it is
# (--reuse-build: nothing is configured or compiled again), so that the script of the CUDA check
# cannot rot where no GPU is at hand: `embpriv system`, the [cuda] tests (which say they skip),
# and configs/device/*.yaml on the CPU with their tables and /timing (docs/gpu.md).
# Debian's python3 (h5py, numpy) prints the tables side by side.
set(device_check_python python3)
if(PYTHON_EXECUTABLE)
  set(device_check_python ${PYTHON_EXECUTABLE})
endif()
add_test(NAME device_check_cpu
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/device/check.sh --cpu --reuse-build ${CMAKE_BINARY_DIR}
                 --python ${device_check_python} --log ${CMAKE_BINARY_DIR}/test-results/device_check_cpu.log
         WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(device_check_cpu PROPERTIES TIMEOUT 300)
