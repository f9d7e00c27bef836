# The targets of both CMake test projects (cmake-project, cmake-plain-project): a device static library
# (a kernel member, a device-code-only member, an unused member) and an executable that calls into it
# across files, all with separable compilation. Sources: the program of ../program.test (SOURCES).
add_library(red STATIC ${SOURCES}/reduce.cu ${SOURCES}/devonly.cu ${SOURCES}/unused.cu)
set_target_properties(red PROPERTIES CUDA_SEPARABLE_COMPILATION ON)

add_executable(app ${SOURCES}/main.cpp ${SOURCES}/app.cu ${SOURCES}/vec.cu)
target_include_directories(app PRIVATE ${SOURCES})
set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
target_link_libraries(app PRIVATE red)
