# SPDX-License-Identifier: GPL-3.0-or-later
# Writes one CTest test per GoogleTest suite of a test binary (run after each build of it,
# like gtest_discover_tests, which makes one per test). A test per suite starts LibTorch once
# for the suite instead of once for each of its tests: about 0.4 s a process, which made
# half of the core tests' time. Arguments (-D): TEST_EXECUTABLE, WRAPPER (tests/run_suite.sh),
# CTEST_FILE (the file to write), LABEL.
execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${rc})")
endif()
string(REPLACE ";" "," listing "${listing}")  # keep CMake's list splitting to the lines
string(REPLACE "\n" ";" lines "${listing}")
set(content "# Written by tests/cmake/gtest_suites.cmake from ${TEST_EXECUTABLE}\n")
foreach(line IN LISTS lines)
  # A suite's line is its name and a dot ("Engine/AccumEqualsBigBatch.", perhaps followed by
  # "  # TypeParam = …"); its tests follow, indented.
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    string(APPEND content
      "add_test([=[${suite}]=] [=[${WRAPPER}]=] [=[${TEST_EXECUTABLE}]=] [=[--gtest_filter=${suite}.*]=])\n"
      "set_tests_properties([=[${suite}]=] PROPERTIES LABELS ${LABEL} SKIP_RETURN_CODE 77 "
      "ENVIRONMENT OMP_NUM_THREADS=1)\n")
  endif()
endforeach()
file(WRITE "${CTEST_FILE}" "${content}")
