# notebooks/, executed by ctest on small results made during the test run (docs/python.md,
# "Notebooks"). Each configs/ci/<name>.yaml is a fixture test writing <name>.h5; each notebook
# test requires the fixtures it reads and gets their paths as EMBPRIV_<CONFIG>=file.
set(EMBPRIV_TEST_RESULTS ${CMAKE_BINARY_DIR}/test-results)
set(ci_results perturbation_small obfuslm_small obfuslm_baselines_small privateai_small privateai_ablation_small inversion_small
    mia_small audit_small)
foreach(name ${ci_results})
  add_test(NAME notebook_results_${name}
           COMMAND $<TARGET_FILE:embpriv> run ${CMAKE_SOURCE_DIR}/configs/ci/${name}.yaml
                   --out ${EMBPRIV_TEST_RESULTS}/${name}.h5 --overwrite --no-plot -q)
  set_tests_properties(notebook_results_${name} PROPERTIES FIXTURES_SETUP results_${name})
endforeach()

# The reproduction report (docs/reproduction.md) on the same CI results: every claim's verdict must
# be the one configs/claims/*.yaml expects (expected_ci), so a verdict changes only together with
# its claims file. It reads the files the fixtures above write; it runs nothing itself (~1 s).
set(report_fixtures "")
foreach(name ${ci_results})
  list(APPEND report_fixtures results_${name})
endforeach()
add_test(NAME reproduction_report_ci
         COMMAND $<TARGET_FILE:embpriv> report --scale ci --root ${CMAKE_SOURCE_DIR}
                 --claims ${CMAKE_SOURCE_DIR}/configs/claims --results ${EMBPRIV_TEST_RESULTS}
                 --out ${EMBPRIV_TEST_RESULTS}/reproduction.md
                 --html ${EMBPRIV_TEST_RESULTS}/reproduction.html --check
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(reproduction_report_ci PROPERTIES FIXTURES_REQUIRED "${report_fixtures}")

# notebook_test(NOTEBOOK RESULTS... ENV NAME=RESULTS_NAME...): one test of notebooks/NOTEBOOK.ipynb.
function(notebook_test notebook)
  cmake_parse_arguments(arg "" "" "RESULTS;ENV" ${ARGN})
  set(pairs "")
  foreach(pair ${arg_ENV})
    string(REGEX REPLACE "^([A-Z0-9_]+)=(.+)$" "\\1=${EMBPRIV_TEST_RESULTS}/\\2.h5" pair "${pair}")
    list(APPEND pairs "${pair}")
  endforeach()
  set(fixtures "")
  foreach(name ${arg_RESULTS})
    list(APPEND fixtures results_${name})
  endforeach()
  add_test(NAME notebook_${notebook}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/notebooks/run_notebook.sh ${CMAKE_SOURCE_DIR}/notebooks/${notebook}.ipynb
                   ${EMBPRIV_TEST_RESULTS}/notebooks ${pairs})
  set_tests_properties(notebook_${notebook} PROPERTIES FIXTURES_REQUIRED "${fixtures}"
                       ENVIRONMENT "EMBPRIV_PYTHONPATH=${CMAKE_BINARY_DIR}/python;EMBPRIV_TEST_PYTHON=${EMBPRIV_TEST_PYTHON}")
endfunction()

notebook_test(vmf_paper RESULTS perturbation_small ENV EMBPRIV_RESULTS=perturbation_small)
notebook_test(obfuslm_paper RESULTS obfuslm_small ENV EMBPRIV_OBFUSLM_STORIES260K=obfuslm_small)
notebook_test(privateai_paper RESULTS privateai_small privateai_ablation_small
              ENV EMBPRIV_PRIVATEAI_EPS=privateai_small EMBPRIV_PRIVATEAI_MIA=privateai_small
                  EMBPRIV_PRIVATEAI_HETEROGENEITY=privateai_small EMBPRIV_PRIVATEAI_CENTRAL=privateai_small
                  EMBPRIV_PRIVATEAI_ABLATION=privateai_ablation_small)
notebook_test(attacks RESULTS inversion_small mia_small audit_small
              ENV EMBPRIV_INVERSION_STORIES260K=inversion_small
                  EMBPRIV_LEARNED_INVERSION_STORIES260K=inversion_small
                  EMBPRIV_MIA=mia_small EMBPRIV_AUDIT=audit_small)

# Every notebook has its test above.
file(GLOB notebooks CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/notebooks/*.ipynb)
foreach(notebook ${notebooks})
  get_filename_component(name ${notebook} NAME_WE)
  if(NOT TEST notebook_${name})
    message(FATAL_ERROR "notebooks/${name}.ipynb has no test: add a notebook_test() to tests/notebooks/notebooks.cmake")
  endif()
endforeach()
