# Which python3 runs what: a probe, not a fixed path. A pyenv or venv python3 earlier on PATH often
# lacks the packages that the system's python3 has (Debian's python3-torch, python3-numpy, h5py),
# so the first python3 on PATH is not always the right one.

# embpriv_find_python(VARIABLE CHECK DOC): unless VARIABLE is set already, sets the cache variable
# VARIABLE to the first python3 on PATH for which `python3 -c CHECK` exits 0; leaves it unset
# when none does.
function(embpriv_find_python variable check doc)
  if(${variable})
    return()
  endif()
  string(REPLACE ":" ";" directories "$ENV{PATH}")
  foreach(directory ${directories})
    set(candidate "${directory}/python3")
    if(EXISTS "${candidate}" AND NOT IS_DIRECTORY "${candidate}")
      execute_process(COMMAND "${candidate}" -c "${check}" RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
      if(status EQUAL 0)
        set(${variable} "${candidate}" CACHE FILEPATH "${doc}")
        return()
      endif()
    endif()
  endforeach()
endfunction()

# embpriv_test_python(): EMBPRIV_TEST_PYTHON, the python3 that runs the tests' reference scripts
# and notebooks (numpy; h5py, torch and nbconvert where a test needs them): -DEMBPRIV_TEST_PYTHON
# when given, else the module's PYTHON_EXECUTABLE (python/CMakeLists.txt), else the first python3
# on PATH with numpy.
function(embpriv_test_python)
  set(doc "The python3 of the tests' reference scripts and notebooks")
  if(NOT EMBPRIV_TEST_PYTHON AND PYTHON_EXECUTABLE)
    set(EMBPRIV_TEST_PYTHON "${PYTHON_EXECUTABLE}" CACHE FILEPATH "${doc}")
  endif()
  embpriv_find_python(EMBPRIV_TEST_PYTHON "import numpy" "${doc}")
  if(NOT EMBPRIV_TEST_PYTHON)
    message(WARNING "no python3 on PATH imports numpy: the tests that run a Python reference will fail "
                    "(apt-get install python3-numpy, or pass -DEMBPRIV_TEST_PYTHON=/path/to/python3)")
    set(EMBPRIV_TEST_PYTHON python3 PARENT_SCOPE)  # not cached: the next configure probes again
  endif()
endfunction()
