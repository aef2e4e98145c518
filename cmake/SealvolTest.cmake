# sealvol_add_test(NAME SOURCES... LIBS lib...): one GoogleTest binary,
# registered with CTest (test cases discovered after build).
function(sealvol_add_test name)
  if(NOT SEALVOL_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main
                        GTest::gmock)
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                       PROPERTIES ENVIRONMENT
                       "SEALVOL_TESTDATA=${PROJECT_SOURCE_DIR}/tests/data")
endfunction()

# sealvol_add_library(NAME SOURCES... DEPS lib...): one static library per
# src/<component>/, includes rooted at src/.
function(sealvol_add_library name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${L_DEPS})
endfunction()
