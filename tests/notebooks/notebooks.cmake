# notebooks/, executed by ctest on results made during the test run.
set(EMBPRIV_TEST_RESULTS ${CMAKE_BINARY_DIR}/test-results)

# Fixture: a small real sweep (configs/ci/perturbation_small.yaml).
add_test(NAME notebook_results
         COMMAND $<TARGET_FILE:embpriv> run ${CMAKE_SOURCE_DIR}/configs/ci/perturbation_small.yaml
                 --out ${EMBPRIV_TEST_RESULTS}/perturbation_small.h5 --overwrite --no-plot -q)
set_tests_properties(notebook_results PROPERTIES FIXTURES_SETUP perturbation_results)

file(GLOB notebooks CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/notebooks/*.ipynb)
foreach(notebook ${notebooks})
  get_filename_component(notebook_name ${notebook} NAME_WE)
  add_test(NAME notebook_${notebook_name}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/notebooks/run_notebook.sh ${notebook}
                   ${EMBPRIV_TEST_RESULTS}/perturbation_small.h5 ${EMBPRIV_TEST_RESULTS}/notebooks)
  set_tests_properties(notebook_${notebook_name} PROPERTIES FIXTURES_REQUIRED perturbation_results)
endforeach()

