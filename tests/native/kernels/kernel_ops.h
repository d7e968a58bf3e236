/* Launchers of the device kernels kernels.cpp runs, declared as a native
 * CANN program's kernel header declares them: each is defined natively in
 * the kernel's own source around kernel<<<blockDim, nullptr, stream>>>.
 * Built without those sources (-Wl,--allow-undefined), the program imports
 * them, and the host binds them to the kernels it registered
 * (aclwasm run --kernels cann-examples). */
#ifndef ACLWASM_TESTS_KERNEL_OPS_H_
#define ACLWASM_TESTS_KERNEL_OPS_H_
#include <cstdint>

void EasyOP(uint32_t blockDim, void* stream, uint32_t* x);
void ShortOP(uint32_t blockDim, void* stream, uint32_t* x);
void LongOP(uint32_t blockDim, void* stream, uint32_t* x);
void ErrorOP(uint32_t blockDim, void* stream);
void WriteDo(uint32_t blockDim, void* stream, int* devPtr, int value);
void ReadDo(uint32_t blockDim, void* stream, int* devPtr);
void PrintDo(uint32_t blockDim, void* stream);
void AddDo(uint32_t blockDim, void* stream, float* srcA, float* srcB, float* dst, uint32_t totalSize);

#endif  // ACLWASM_TESTS_KERNEL_OPS_H_
