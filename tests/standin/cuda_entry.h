// The entry points nvcc's generated host code calls to register and launch
// kernels (CUDA 13), which cuda_runtime_api.h does not declare: the stand-in
// runtime defines them (runtime_kernels.cpp), standin_test calls them as
// nvcc's code would.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

extern "C" {
void** __cudaRegisterFatBinary(void* fatCubin);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaUnregisterFatBinary(void** handle);
void __cudaRegisterFunction(void** handle, const char* hostFun, char* deviceFun, const char* deviceName,
                            int threadLimit, uint3* tid, uint3* bid, dim3* bDim, dim3* gDim, int* wSize);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared, struct CUstream_st* stream);
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* shared, void* stream);
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared,
                               cudaStream_t stream);
}
