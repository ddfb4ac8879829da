#pragma once
// Op semantics shared by every executor backend: attribute readers, broadcasting, conv/pool
// geometry, the seeded generator, each op's normalised parameters (output shapes, axes,
// slices, reductions) and the check pass that validates every op (operand and result counts
// and kinds, attributes, shapes) and propagates shapes to bound a run's bytes before any op runs.
// Qt-free and kernel-free: the CPU backend and the CUDA backend both call it; a kernel reads
// its op through OpSite and these functions, never the attributes themselves.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/Geometry.h"
#include "exec/Tensor.h"
#include "model/OpTraits.h"
#include "model/Program.h"

namespace rx::exec {

using Dims = std::vector<int64_t>;

int64_t numelOf(const Dims& d);
// An axis and the lanes along it: element (o, j, i) of a tensor is at (o * n + j) * inner + i
// (axisLanes, below).
struct AxisLanes {
    size_t axis = 0;
    int64_t outer = 1, n = 1, inner = 1;
};
std::string dimsString(const Dims& d);
// Row-major strides of `d`.
Dims stridesOf(const Dims& d);
// Numpy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<Dims> broadcastShapes(const Dims& a, const Dims& b);
// The same, refusing shapes that do not broadcast ("shapes [2,3] and [2] do not broadcast"):
// the one wording of the check pass and of every kernel.
using FailFn = std::function<void(const std::string&)>;
Dims broadcastDims(const Dims& a, const Dims& b, const FailFn& fail);
// A gradient of dims `from` summed down to an operand of dims `to` (the reverse of
// broadcasting: `to` must broadcast to `from` exactly), else "cannot reduce [..] to [..]".
void checkReducible(const Dims& from, const Dims& to, const FailFn& fail);
// where (cond, x, y): the three shapes broadcast together.
Dims whereDims(const Dims& cond, const Dims& x, const Dims& y, const FailFn& fail);
// matmul (and each product of matmul_grad): a 1-d operand promoted ([k] -> [1,k] on the left,
// [k,1] on the right, its transpose dropped), the inner dims checked, the leading (batch)
// dims broadcast; the result drops a promoted operand's dim.
struct MatmulShape {
    Dims a, b;                           // the operands' dims after promotion
    bool transposeA = false, transposeB = false;
    int64_t m = 0, n = 0, k = 0;
    Dims aBatch, bBatch, batch;          // each operand's leading dims and their broadcast
    Dims outDims;
};
MatmulShape matmulShape(const Dims& a, bool transposeA, const Dims& b, bool transposeB, const FailFn& fail);
// arange: the length ceil((end - start) / step), clamped at 0; a step of 0 or a non-finite
// length refused.
int64_t arangeLength(double start, double end, double step, const FailFn& fail);

// Attribute readers with Paddle's loose printing (ints printed as floats, bools as ints ...).
int64_t attrInt(const Operation& o, std::string_view name, int64_t fallback);
double attrFloat(const Operation& o, std::string_view name, double fallback);
bool attrBool(const Operation& o, std::string_view name, bool fallback);
Dims attrInts(const Operation& o, std::string_view name);
std::string attrString(const Operation& o, std::string_view name, std::string fallback);

// FailFn (above): a failure callback that throws (never returns); used by geometry helpers
// so the kernels of every backend and the check pass word their errors the same way.

class OpSite;

// conv2d geometry (NCHW input, OIHW filter; exec/Geometry.h), validated: strides, dilations
// > 0, groups divide the channels, paddings >= 0, a non-empty output.
Conv2dGeom conv2dGeometry(const Operation& o, const Dims& x, const Dims& filter, const FailFn& fail);

// pool2d geometry (NCHW; exec/Geometry.h), validated: kernel and strides > 0, paddings >= 0, non-empty output.
PoolGeom pool2dGeometry(const Operation& o, const Dims& x, Dims kernelSize, const FailFn& fail);
// The same for the op a kernel runs: pool2d's kernel size from operand `kernelOperand` or
// attribute kernel_size.
Conv2dGeom conv2dGeometry(const OpSite& s, const Dims& x, const Dims& filter);
PoolGeom pool2dGeometry(const OpSite& s, const Dims& x, size_t kernelOperand);

// ---------- the op a kernel runs: one view for every backend ----------
// What semantics need of an op: its attributes, declared results, and its operands as the
// backend holds them (the backend answers the virtual operand queries; the CUDA backend
// copies small integer operands to the host). Every failure is worded "op 7 (pd_op.x ->
// %12): ..." in every backend, so the same invalid op is refused with the same message.
class OpSite {
public:
    OpSite(const Program& p, OpId op) : program(p), id(op), o(p.op(op)) {}
    virtual ~OpSite() = default;
    const Program& program;
    OpId id;
    const Operation& o;

    [[noreturn]] void fail(const std::string& msg) const;
    FailFn failFn() const { return [this](const std::string& m) { fail(m); }; }

    // Operands as the backend holds them.
    virtual size_t operandCount() const = 0;
    virtual bool has(size_t i) const = 0;
    // Dims of tensor operand i (fails when it is missing or a vector).
    virtual Dims operandDims(size_t i) const = 0;
    // Integer contents of operand i: a tensor, or a vector of (0-d / 1-element) tensors.
    virtual Dims ints(size_t i) const = 0;
    // Element 0 of tensor operand i.
    virtual double scalar(size_t i) const = 0;
    // Whether operand i is a one-element float tensor (a mutable scalar such as dropout's p).
    virtual bool isFloatScalar(size_t i) const = 0;
    // Whether operand i holds a vector (builtin.combine's result) rather than a tensor.
    virtual bool isVector(size_t i) const = 0;
    // Fails unless operand i is present and a vector (`vector`) or a tensor (not `vector`).
    void needOperand(size_t i, bool vector) const;

    // Attributes, read with Paddle's loose printing and guarded (a NaN int is the fallback).
    const Attribute* attr(std::string_view n) const { return o.attribute(n); }
    bool hasAttr(std::string_view n) const { return attr(n) != nullptr; }
    int64_t attrInt(std::string_view n, int64_t def) const { return rx::exec::attrInt(o, n, def); }
    double attrFloat(std::string_view n, double def) const;
    bool attrBool(std::string_view n, bool def) const { return rx::exec::attrBool(o, n, def); }
    Dims attrInts(std::string_view n) const { return rx::exec::attrInts(o, n); }
    std::string attrString(std::string_view n, std::string def) const { return rx::exec::attrString(o, n, std::move(def)); }
    // Integers from operand i when present, else from attribute `n`.
    Dims intsOr(size_t i, std::string_view n) const { return has(i) ? ints(i) : attrInts(n); }
    int64_t intOr(size_t i, std::string_view n, int64_t def) const;

    // Declared results.
    const Type& resultType(size_t i) const;
    bool resultIsNull(size_t i) const { return i >= o.results.size() || resultType(i).kind == Type::Kind::Null; }
    // Static dims of result i, or nullopt if any is dynamic or it is not a tensor.
    std::optional<Dims> staticDims(size_t i) const;
    std::string resultName(size_t i) const;

    int64_t normAxis(int64_t axis, size_t rank) const;
    Dims broadcast(const Dims& a, const Dims& b) const;
    // Element count of `d`, refusing negative dims and counts beyond int64.
    int64_t checkedNumel(const Dims& d) const;
};

// ---------- the seeded generator (one place: inputs, dropout, uniform, randint) ----------
uint64_t mix64(uint64_t x);
uint64_t hashString(std::string_view s, uint64_t seed);
// Uniform double in [0,1) from a counter-based generator (same value for same key, index).
double uniformAt(uint64_t key, uint64_t index);
bool isFloatDType(DType t);
// The seeded random tensor an input `name` of this type receives when a run is not given it:
// floats uniform in [-1, 1), integers in [0, 4), bools a fair coin, complex parts in [-1, 1).
// `integerBound` (> 0) caps integer values at [0, integerBound) for inputs that index a
// small table; the default 4 leaves every other input as it always was.
Tensor seededInput(const std::string& name, DType dtype, const std::vector<int64_t>& dims, uint64_t seed,
                   int64_t integerBound = 4);
// The exclusive bound of the integers operand `operand` of `op` may hold when it indexes a
// table (embedding ids: the table's rows; gather / index_select index: the axis; scatter,
// put_along_axis, index_sample, gather_nd, cross-entropy labels), from declared static dims;
// nullopt when the operand indexes nothing or the table's size is not static.
std::optional<int64_t> indexOperandBound(const Program& p, OpId op, size_t operand);
// The integer bound of input op `inputOp`'s result: the smallest indexOperandBound over its
// readers, followed through views and casts; nullopt when nothing it reaches indexes a table.
std::optional<int64_t> inputIndexBound(const Program& p, OpId inputOp);
// What a run feeds input op `inputOp` when it is not given: seededInput under its name, with
// integers kept below inputIndexBound (so a 3-row embedding table is never indexed at 3).
Tensor seededInputFor(const Program& p, OpId inputOp, uint64_t seed);
// The key of a random op's draws: its first result's name and the run seed (and the op's seed
// attribute, randint excepted), so a recomputed clone named alike draws the same numbers; an
// op with fix_seed true is keyed by its seed alone (model/RandomRecompute.h), as in Paddle.
uint64_t randomOpKey(const OpSite& s, uint64_t runSeed);

// ---------- inputs and the ops a backend walks ----------
// The name an input op is fed by: parameter_name / name attribute, else its result's name.
std::string inputName(const Program& p, OpId op);
// Every op of block `b` and its nested regions, in order.
void collectOps(const Program& p, BlockId b, std::vector<OpId>& out);
bool isComplexValue(const Program& p, ValueId v);
// What every backend refuses before running: ops it has no kernel for (`missing`, from its
// unsupportedOps) and results of dtypes it has no kernels for; `backend` names it ("CPU").
void refuseUnrunnable(const Program& p, const std::vector<std::string>& missing, const std::string& backend,
                      const std::function<bool(DType)>& runsDType);
// What a backend reports as unsupportedOps: the live ops of every block it cannot run
// (`runs` false) and those touching complex tensors unless `complexAware`; inputs always run.
// Sorted, unique; complex ones as "<name> (on complex tensors)".
std::vector<std::string> unsupportedOpsOf(const Program& p, const std::function<bool(const Operation&, std::string_view)>& runs,
                                          const std::function<bool(std::string_view)>& complexAware);

// ---------- normalised parameters of each op family ----------
// full: the shape (operand 0 or attribute shape), every dim >= 0, its count within int64.
Dims fullShape(const OpSite& s);
// full_with_tensor: the declared static result dims, else operand 1.
Dims fullWithTensorShape(const OpSite& s);
// reshape / view_shape: the target shape (0 copies a dim, one -1 inferred), same count.
Dims reshapeDims(const OpSite& s, const Dims& in, Dims shape);
Dims reshapeDims(const OpSite& s);  // operand 0's dims to operand 1 or attribute shape
Dims squeezeDims(const OpSite& s);
Dims unsqueezeDims(const OpSite& s);
Dims flattenDims(const OpSite& s);
// The xshape result of reshape-like ops: [0, x dims...].
Dims xshapeDims(const Dims& in);
// transpose: the permutation, normalised and checked to be one (inverse for transpose_grad).
Dims transposePerm(const OpSite& s, size_t rank, bool inverse);
Dims permutedDims(const Dims& in, const Dims& perm);
// expand (operand 1 or attribute shape, -1 keeps a dim) and expand_as, checked to broadcast.
Dims expandDims(const OpSite& s);
Dims expandAsDims(const OpSite& s);
// slice / slice_grad: the window of the input and the result's dims after decrease_axis.
struct SliceGeom {
    Dims begin, size, outDims;
};
SliceGeom sliceGeometry(const OpSite& s, const Dims& in, size_t startsOperand);
// split / split_with_num / concat_grad: the axis and the sections (inferred one resolved).
// `parts` are the results' dims (the input's with the axis cut to each section; unbind
// drops the axis, stack_grad takes each x's dims); `lanes` the input's around the axis.
struct SplitGeom {
    size_t axis = 0;
    Dims sections;
    std::vector<Dims> parts;
    AxisLanes lanes;
};
SplitGeom splitGeometry(const OpSite& s, const Dims& in, Dims sections, int64_t axis);
SplitGeom splitGeometry(const OpSite& s);  // pd_op.split, pd_op.split_with_num
// concat_grad (x vector, out_grad, axis): out_grad (the concat of the xs) split back into them.
SplitGeom concatGradGeometry(const OpSite& s, const Dims& outGrad, const std::vector<Dims>& xs);
// concat / split_grad: the axis (operand `axisOperand` or attribute axis) and the result dims.
size_t concatAxis(const OpSite& s, size_t axisOperand, size_t rank);
Dims concatDims(const OpSite& s, const std::vector<Dims>& parts, size_t axis);
// stack: the new axis in [0, rank].
size_t stackAxis(const OpSite& s, size_t rank);
// stack of `parts` (one rank, one shape): the axis, each part with a 1 inserted there (what
// is concatenated) and the result dims.
struct StackGeom {
    size_t axis = 0;
    std::vector<Dims> parts;
    Dims outDims;
};
StackGeom stackGeometry(const OpSite& s, const std::vector<Dims>& parts);
// add_n of `parts`: every part of one shape, the result's.
Dims addNDims(const OpSite& s, const std::vector<Dims>& parts);
// reshape_grad / squeeze_grad / unsqueeze_grad / flatten_grad (xshape, out_grad): x's dims
// (the declared result's when static, else xshape's without its leading 0), holding
// out_grad's `gradCount` elements.
Dims reshapeGradDims(const OpSite& s, const Dims& xshape, int64_t gradCount);
// Reductions over axes (operand `axesOperand` or attribute axis; empty or reduce_all = all).
struct ReduceGeom {
    std::vector<bool> reduced;   // by input axis
    Dims keptDims;               // reduced axes as 1
    Dims droppedDims;            // reduced axes removed
    bool keepdim = false;
    const Dims& outDims() const { return keepdim ? keptDims : droppedDims; }
};
ReduceGeom reduceGeometry(const OpSite& s, const Dims& in, size_t axesOperand);
// builtin.slice: the element of a vector of `size` it takes; builtin.split: checks that the
// vector has as many elements as the op has results.
size_t vectorSliceIndex(const OpSite& s, size_t size);
void checkVectorSplit(const OpSite& s, size_t size);
// The reductions and their kernel kinds (0 sum, 1 mean, 2 max, 3 min, 4 prod), for every backend.
const std::vector<std::pair<std::string, int>>& reductionKinds();
// gather / index_select: the axis; embedding: the output dims [ids..., width].
size_t gatherAxis(const OpSite& s, size_t rank);
Dims embeddingDims(const OpSite& s, const Dims& ids, const Dims& weight);
// dropout / dropout_grad: p (attribute or the scalar operand), mode and is_test.
struct DropoutParams {
    double p = 0.5;
    bool isTest = false;
    bool upscale = true;
    uint64_t key = 0;  // the generator key of a training-mode dropout (0 in test mode: no draws)
};
// The key is set only when a run seed is given (the forward op; the grad reads its mask).
DropoutParams dropoutParams(const OpSite& s, std::optional<uint64_t> runSeed = std::nullopt);
// uniform / randint: the shape, bounds and the generator key.
struct RandomParams {
    Dims shape;
    double low = 0, high = 1;
    uint64_t key = 0;
};
RandomParams uniformParams(const OpSite& s, uint64_t runSeed);
RandomParams randintParams(const OpSite& s, uint64_t runSeed);

// ---------- scalar parameters of the norm, softmax, elementwise and matmul families ----------
// Each op's scalar attributes (and the scalar operands that stand in for them) read once,
// with Paddle's defaults, validated with a positioned message; kernels of every backend take
// these records and read no attribute themselves.
AxisLanes axisLanes(const Dims& d, size_t axis);
// softmax / log_softmax and their grads: attribute axis (default -1), normalised for x's dims.
AxisLanes softmaxLanes(const OpSite& s, const Dims& x);
// The epsilon of a norm: attribute epsilon (else `fallback`), finite and >= 0.
double normEpsilon(const Operation& o, double fallback, const FailFn& fail);
// layer_norm / rms_norm (and grads): rows before begin_norm_axis, normalised columns after it.
struct RowNormParams {
    int64_t rows = 1, cols = 1;
    double epsilon = 1e-5;  // rms_norm's default is 1e-6
};
RowNormParams rowNormParams(const OpSite& s, const Dims& x);
// The dims of a per-row statistic result (layer_norm's mean and variance, rms_norm's
// inv_var): its declared dims when they hold `rows` values, else [rows].
Dims rowStatDims(const OpSite& s, size_t result, int64_t rows);
// batch / group / instance norm (and grads) over NCHW-like x: batch, channels, the elements
// per channel; groups (group_norm, dividing the channels), momentum and whether the running
// statistics are used (batch_norm's is_test or use_global_stats).
struct ChannelNormParams {
    int64_t batch = 0, channels = 0, spatial = 0, groups = 1;
    double epsilon = 1e-5, momentum = 0.9;
    bool useGlobalStats = false;
};
ChannelNormParams batchNormParams(const OpSite& s, const Dims& x);
ChannelNormParams groupNormParams(const OpSite& s, const Dims& x);
ChannelNormParams instanceNormParams(const OpSite& s, const Dims& x);
// cross_entropy_with_softmax (and grad) {soft_label, use_softmax, ignore_index, axis}: the
// lanes along axis and the loss dims (that axis kept with size 1).
struct CrossEntropyParams {
    AxisLanes lanes;
    Dims lossDims;
    bool softLabel = false, useSoftmax = true;
    int64_t ignoreIndex = -100;
};
CrossEntropyParams crossEntropyParams(const OpSite& s, const Dims& x);
// scale (and scale_grad): the factor from operand 1 or attribute scale; bias, bias_after_scale.
struct ScaleParams {
    double scale = 1, bias = 0;
    bool biasAfterScale = true;
};
ScaleParams scaleParams(const OpSite& s);
// clip: bounds from operands 1, 2 or attributes min, max (unbounded by default).
struct ClipParams {
    double min = -std::numeric_limits<double>::infinity(), max = std::numeric_limits<double>::infinity();
};
ClipParams clipParams(const OpSite& s);
// pow (operand 1) and pow_grad (operand 2), else attribute y: the exponent.
struct PowParams {
    double exponent = 1;
};
PowParams powParams(const OpSite& s);
// gelu and gelu_grad: the tanh approximation or the exact erf form.
struct GeluParams {
    bool approximate = false;
};
GeluParams geluParams(const OpSite& s);
// matmul and matmul_grad: whether each operand is used transposed.
struct MatmulParams {
    bool transposeX = false, transposeY = false;
};
MatmulParams matmulParams(const OpSite& s);
// tril / triu (and grads) of x (rank >= 2): the diagonal kept as the boundary and the
// matrices' rows and columns (x's last two dims).
struct TriangleParams {
    int64_t diagonal = 0;
    int64_t rows = 0, cols = 0;
};
TriangleParams triangleParams(const OpSite& s, const Dims& x);
// The rank tril / triu need (>= 2), checked where only the rank is known (the check pass).
void checkTriangleRank(int64_t rank, const FailFn& fail);
// swiglu (x[, y]) and swiglu_grad (x[, y], out_grad): silu(x) * y; without y, x's last axis
// holds [x | y] (even), `half` wide. rows x half elements in the result (out_grad checked).
struct SwigluGeom {
    bool hasY = false;
    int64_t half = 0, rows = 0;
    Dims outDims;
};
SwigluGeom swigluGeometry(const OpSite& s, const Dims& x, bool grad);
// arange (start, end, step): the first value, the step and the length (arangeLength).
struct ArangeParams {
    double start = 0, step = 1;
    int64_t length = 0;
};
ArangeParams arangeParams(const OpSite& s);
// logit: inputs clamped to [eps, 1 - eps] when eps > 0.
struct LogitParams {
    double eps = 0;
};
LogitParams logitParams(const OpSite& s);
// embedding and embedding_grad: the id whose rows stay zero (-1: none).
struct EmbeddingParams {
    int64_t paddingIdx = -1;
};
EmbeddingParams embeddingParams(const OpSite& s);
// full, full_like (operand 1 or attribute value), full_int_array (attribute value): the values.
double fullValue(const OpSite& s);
Dims fullIntArrayValues(const OpSite& s);
// fetch / shadow_output: the name a value is fetched under (attribute name or output_name).
std::string fetchName(const Program& p, OpId op);
// ---------- end of the scalar parameters ----------

// ---------- reshape / expand / transpose rules, for the ops and for the check pass ----------
// The rules on what is known before a run (attributes, constant operands, declared ranks)
// and on the full shapes, worded once: the check pass calls them with what it knows, the
// OpSite functions above (reshapeDims, expandDims, transposePerm) with the operands' dims.
// Element count of `d` (dims >= 0) within int64.
int64_t checkedNumel(const Dims& d, const FailFn& fail);
// A reshape target: dims >= -1 (0 copies the input's dim), at most one -1.
void checkReshapeTarget(const Dims& shape, const FailFn& fail);
// The reshape of `in` to `shape`: 0 copies a dim, the -1 inferred, the same element count.
Dims reshapeTarget(const Dims& in, Dims shape, const FailFn& fail);
// An expand target for an input of rank `rank` (-1 when unknown): dims >= -1, rank not lower.
void checkExpandTarget(const Dims& shape, int64_t rank, const FailFn& fail);
// The expand of `in` to `shape` (-1 keeps a dim, only in the input's dims); each input dim is
// 1 or its target's. `checkCount`: refuse a count beyond int64 (the check pass counts
// elements against its own, lower limit instead).
Dims expandTarget(const Dims& in, const Dims& shape, const FailFn& fail, bool checkCount = true);
// transpose's perm attribute for an operand of rank `rank` (-1 when unknown): one entry per
// axis, each in range and none repeated; normalised (inverse: the inverse permutation).
Dims transposePermutation(const Dims& perm, int64_t rank, bool inverse, const FailFn& fail);
// ---------- end of the reshape / expand / transpose rules ----------

// Limits of one run, in real bytes (shapes propagated, not only declared). 0 = no limit.
struct RunLimits {
    int64_t maxBytesPerValue = int64_t(1) << 31;    // 2 GiB
    int64_t maxTotalBytes = int64_t(6) << 30;       // live bytes at any point, 6 GiB
    int64_t maxElementsPerValue = int64_t(1) << 28;
    int64_t maxMultiplyAdds = int64_t(2'000'000'000'000);
};

// What the check pass learned: shapes by value (nullopt = only known at run time), the
// largest value, the peak of live bytes under free-after-last-use, the multiply-adds.
struct ProgramCheck {
    std::vector<std::optional<Dims>> shapes;   // by ValueId
    int64_t largestBytes = 0;
    std::string largestValue;
    int64_t peakBytes = 0;
    int64_t multiplyAdds = 0;
};

// Validates every op of the global block and propagates shapes; throws rx::Error naming
// the op index, op name and the attribute or operand at fault ("op 7 (pd_op.conv2d ->
// %12): attribute strides = [0,1]: every stride must be > 0"). Limits are checked on the
// propagated shapes. `residentValues` (by ValueId, may be empty) never die.
ProgramCheck checkProgram(const Program& program, const RunLimits& limits, const std::vector<uint8_t>& residentValues = {});

// The error prefix for op `op`: "op 7 (pd_op.conv2d -> %12)".
std::string opWhere(const Program& program, OpId op);

// ---------- parameters of the conv/pool, attention, indexing and scan kernels ----------
// Each op's attributes (and the operands standing in for them) read once with Paddle's
// defaults and validated with a positioned message; the CPU kernels of these families take
// these records and read no attribute themselves. An axis's lanes are outer x n x inner:
// element (o, j, i) is at (o * n + j) * inner + i.
// max_pool2d_with_index (and its shape check): pool2dGeometry with attribute kernel_size, a max pool.
PoolGeom maxPoolWithIndexGeometry(const OpSite& s, const Dims& x);
// bilinear_interp / nearest_interp (and grads) on NCHW x: the output size (operand 1
// out_size, operand 2 size_tensor, attributes out_h / out_w, else scale) and the coordinate rule.
struct InterpParams {
    int64_t n = 0, ch = 0, h = 0, w = 0, oh = 0, ow = 0;
    bool alignCorners = true;
    int64_t alignMode = 1;
    std::vector<double> scales;  // attribute scale ([h, w] or one for both), empty when unset
};
InterpParams interpParams(const OpSite& s, const Dims& x);
// flash_attn / flash_attn_grad: q [b, sq, h, d], k and v [b, sk, hk, d] (h a multiple of hk),
// the mask's layout, causal and the 1/sqrt(d) scale; dropout refused (training) as the CPU
// cannot reproduce the GPU's stream. The grad also checks out, softmax_lse and out_grad.
struct FlashAttnParams {
    int64_t b = 0, sq = 0, h = 0, d = 0, sk = 0, hk = 0;
    bool causal = false;
    double scale = 1;
    // attn_mask: 0 none, else the dims it holds: 1 [sq, sk], 2 [b, sq, sk], 3 [b, h, sq, sk].
    int maskLayout = 0;
    size_t maskOperand = 0;
    Dims lseDims;  // softmax_lse's: [b, h, sq]
};
FlashAttnParams flashAttnParams(const OpSite& s, bool grad);
// fused_rotary_position_embedding (and grad): q's layout, the rotation style, and where the
// angles come from (sin/cos operands of `rows` rows, else base^(-2i/d)); position_ids checked
// to hold batch*seq values (their range is data, checked by the kernel); each given q/k/v of
// q's batch, seq and head_dim (heads may differ), one result each, of its operand's dims.
struct RotaryParams {
    size_t sinAt = 3, cosAt = 4, posAt = 5, firstX = 0;
    bool timeMajor = false, neox = true;
    int64_t batch = 0, seq = 0, d = 0;
    bool hasSinCos = false, hasPositions = false;
    int64_t rows = 0;  // sin/cos rows (seq when absent)
    double base = 10000;
};
RotaryParams rotaryParams(const OpSite& s, bool grad);
// cumsum (x, axis) {flatten, exclusive, reverse} and cumsum_grad (x, out_grad, axis): the
// lanes of the scanned axis over `dims` (x's, or [numel] when flattened).
struct CumsumParams {
    Dims dims;
    AxisLanes lanes;
    bool exclusive = false, reverse = false;
};
CumsumParams cumsumParams(const OpSite& s, const Dims& x, bool grad);
// argmax / argmin (x, axis) {keepdims, flatten}: the lanes searched and the result dims.
struct ArgExtremumParams {
    AxisLanes lanes;
    Dims outDims;
};
ArgExtremumParams argExtremumParams(const OpSite& s, const Dims& x);
// topk (x, k) {axis, largest} and topk_grad (x, indices, out_grad) {axis}: the lanes, k (the
// grad's from indices) and the result dims.
struct TopkParams {
    AxisLanes lanes;
    int64_t k = 1;
    bool largest = true;
    Dims outDims;
};
TopkParams topkParams(const OpSite& s, const Dims& x);
TopkParams topkGradParams(const OpSite& s, const Dims& x, const Dims& indices, const Dims& outGrad);
// gather / index_select (x, index[, axis]) {axis}: the axis (gatherAxis), its lanes and the
// result dims (the axis replaced by the index count).
struct GatherGeom {
    AxisLanes lanes;
    Dims outDims;
};
GatherGeom gatherGeometry(const OpSite& s, const Dims& x, int64_t indexCount);
// gather_nd (x, index) and gather_nd_grad (x, index, out_grad): the index depth, the rows it
// picks, the elements each copies, the result dims (the grad's out_grad holds them).
struct GatherNdGeom {
    int64_t depth = 0, rows = 0, inner = 1;
    Dims outDims;
};
GatherNdGeom gatherNdGeometry(const OpSite& s, const Dims& x, const Dims& index);
// gather_grad / index_select_grad (x, index, out_grad[, axis]) {axis}: the axis's lanes.
struct GatherGradParams {
    AxisLanes lanes;
};
GatherGradParams gatherGradParams(const OpSite& s, const Dims& x, int64_t indexCount, const Dims& outGrad);
// scatter / scatter_grad {overwrite}.
bool scatterOverwrite(const OpSite& s);
// put_along_axis (arr, indices, values) {axis, reduce}: indices of arr's rank, values broadcast to them.
struct PutAlongAxisParams {
    enum class Reduce { Assign, Add, Multiply };
    size_t axis = 0;
    Reduce reduce = Reduce::Assign;
};
PutAlongAxisParams putAlongAxisParams(const OpSite& s, const Dims& arr, const Dims& indices, const Dims& values);
// pad / pad_grad (x) {paddings, pad_value; operand 1 the value}: the leading pad per dim and the padded dims.
struct PadParams {
    Dims before, outDims;
    double value = 0;
};
PadParams padParams(const OpSite& s, const Dims& x);
// unbind {axis}: x split into its slices along the axis, each without it. stack_grad {axis}:
// out_grad (stacking the `xs` on that axis) split back into tensors of the xs' dims.
SplitGeom unbindGeometry(const OpSite& s, const Dims& x);
SplitGeom stackGradGeometry(const OpSite& s, const Dims& outGrad, const std::vector<Dims>& xs);
// index_sample (x [N, M], index [N, K]): the result's dims (index's).
Dims indexSampleDims(const OpSite& s, const Dims& x, const Dims& index);
// scatter / scatter_grad: the elements of one row (along axis 0) of x (or out_grad), rank >= 1.
int64_t scatterRowWidth(const OpSite& s, const Dims& x);
// max_pool2d_with_index_grad (x [N,C,H,W], mask and out_grad [N,C,OH,OW]): the N*C planes,
// the elements of an input plane and of an output plane.
struct PoolPlanes {
    int64_t planes = 0, plane = 0, outPlane = 0;
};
PoolPlanes maxPoolWithIndexGradPlanes(const OpSite& s, const Dims& x, const Dims& mask, const Dims& outGrad);
// as_complex ([..., 2] reals -> [...]) and as_real ([...] -> [..., 2]): the result dims.
Dims asComplexDims(const OpSite& s, const Dims& x);
Dims asRealDims(const Dims& x);
// ---------- end of the conv/pool, attention, indexing and scan parameters ----------

}  // namespace rx::exec
