# rx_cuda_host: the CUDA backend's plain C++ bookkeeping (caching allocator, value lifetimes).
# Built with or without nvcc, so its host tests run everywhere (included by cuda/ and tests/cuda/).
if(NOT TARGET rx_cuda_host)
  add_library(rx_cuda_host STATIC ${CMAKE_SOURCE_DIR}/cuda/CachingAllocator.cpp
                                  ${CMAKE_SOURCE_DIR}/cuda/LifetimePlan.cpp)
  target_include_directories(rx_cuda_host PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(rx_cuda_host PUBLIC rx_exec)  # exec/Liveness.h
  rx_warnings(rx_cuda_host)
endif()
