# scripts/slurm/ run as Slurm would run them (tests/slurm/slurm_test.sh).
add_test(NAME slurm_array_and_merge
         COMMAND ${CMAKE_SOURCE_DIR}/tests/slurm/slurm_test.sh $<TARGET_FILE:embpriv>
                 ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-results/slurm)

# The same scripts submitted to a real one-node Slurm started by the test (tests/slurm/
# real_slurm_test.sh); skipped, with the reason in its output, where Slurm cannot start.
add_test(NAME slurm_real_cluster
         COMMAND ${CMAKE_SOURCE_DIR}/tests/slurm/real_slurm_test.sh $<TARGET_FILE:embpriv> ${CMAKE_SOURCE_DIR})
set_tests_properties(slurm_real_cluster PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
