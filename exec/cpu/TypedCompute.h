#pragma once
// What kernels computing in the value's dtype share: index tensors read as stored, operands
// brought to the result's dtype, scatter-add targets and the GEMM type of an element type.
#include <optional>
#include <type_traits>
#include <vector>

#include "exec/cpu/KernelContext.h"

namespace rx::exec::cpu {

// An integer (index) tensor read element by element as stored: int64 and int32 directly,
// other dtypes through Tensor::get. The dtype is resolved once, not per element.
class IndexView {
public:
    explicit IndexView(const Tensor& t) : t_(&t) {
        if (t.dtype == DType::Int64) i64_ = t.data<int64_t>();
        else if (t.dtype == DType::Int32) i32_ = t.data<int32_t>();
    }
    int64_t operator[](int64_t i) const {
        if (i64_) return i64_[i];
        if (i32_) return i32_[i];
        return static_cast<int64_t>(t_->get(i));
    }
    int64_t size() const { return t_->numel(); }

private:
    const Tensor* t_;
    const int64_t* i64_ = nullptr;
    const int32_t* i32_ = nullptr;
};

// Stores indices into an integer result (int64 / int32 directly, other dtypes through set).
class IndexWriter {
public:
    explicit IndexWriter(Tensor& t) : t_(&t) {
        if (t.dtype == DType::Int64) i64_ = t.data<int64_t>();
        else if (t.dtype == DType::Int32) i32_ = t.data<int32_t>();
    }
    void set(int64_t i, int64_t v) {
        if (i64_) i64_[i] = v;
        else if (i32_) i32_[i] = static_cast<int32_t>(v);
        else t_->set(i, static_cast<double>(v));
    }

private:
    Tensor* t_;
    int64_t* i64_ = nullptr;
    int32_t* i32_ = nullptr;
};

// `x` when it is of dtype t already (the usual case), else a copy converted to t held in
// `holder`, outside the meter (a temporary, as matmulTensor's conversions).
inline const Tensor& inDType(const Tensor& x, DType t, std::optional<Tensor>& holder) {
    if (x.dtype == t) return x;
    const ScopedStorageMeter unmetered(nullptr);
    holder = mapElements(x, t, [](auto v) { return static_cast<double>(v); });
    return *holder;
}

// Calls f(std::type_identity<T>{}) for the real dtype t; other dtypes fail positioned.
template <class F>
void visitKernelDType(const Context& c, DType t, F&& f) {
    visitRealDType(t, f, [&] { c.fail(std::string("no CPU kernel for dtype ") + std::string(dtypeShortName(t))); });
}

// The type a GEMM multiplies element type T in: f32 by sgemm (f16 and bf16 through f32), f64
// and the integers by dgemm.
template <class T>
using GemmType = std::conditional_t<std::is_same_v<T, float> || isHalfLike<T>, float, double>;

// A zero-filled result of element type T that contributions are added into in any order:
// f32 and f64 add in place in their storage, f16 / bf16 through a float buffer stored once at
// the end (so each element is rounded to half once), integers in their storage.
template <class T>
class AddInto {
public:
    explicit AddInto(Tensor& out) : out_(out.data<T>()), n_(out.numel()) {
        if constexpr (isHalfLike<T>) acc_.assign(static_cast<size_t>(n_), 0.0f);
    }
    void add(int64_t i, double v) {
        if constexpr (isHalfLike<T>) acc_[static_cast<size_t>(i)] += static_cast<float>(v);
        else out_[i] = storeElement<T>(static_cast<double>(loadElement(out_[i])) + v);
    }
    // Stores what the float buffer holds (f16 / bf16); nothing to do for the other types.
    void finish() {
        if constexpr (isHalfLike<T>)
            for (int64_t i = 0; i < n_; ++i) out_[i] = storeElement<T>(static_cast<double>(acc_[static_cast<size_t>(i)]));
    }

private:
    T* out_;
    int64_t n_;
    std::vector<float> acc_;
};

// Element i of a real tensor of element type T as double (the scalar type kernels compute in).
template <class T>
inline double valueAt(const T* p, int64_t i) { return static_cast<double>(loadElement(p[i])); }

}  // namespace rx::exec::cpu
