# scripts/slurm/ run as Slurm would run them (tests/slurm/slurm_test.sh).
add_test(NAME slurm_array_and_merge
         COMMAND ${CMAKE_SOURCE_DIR}/tests/slurm/slurm_test.sh $<TARGET_FILE:embpriv>
                 ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-results/slurm)
