// Linear algebra kernels: matmul and matmul_grad.
#include "algorithms/exec/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerLinalgKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- matmul --
    k["pd_op.matmul"] = [](Context& c) {
        Dims od;
        std::vector<double> out = matmulCore(c, c.x(0).toDoubles(), c.x(0).dims, c.attrBool("transpose_x", false),
                                             c.x(1).toDoubles(), c.x(1).dims, c.attrBool("transpose_y", false), od);
        c.setOutDoubles(0, od, out);
    };
    k["pd_op.matmul_grad"] = [](Context& c) {
        // x: [..,M,K] (or transposed), y: [..,K,N]; dOut: [..,M,N]. Rank >= 2 only.
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        bool tx = c.attrBool("transpose_x", false), ty = c.attrBool("transpose_y", false);
        if (x.dims.size() < 2 || y.dims.size() < 2) c.fail("matmul_grad supports rank >= 2 only");
        std::vector<double> xv = x.toDoubles(), yv = y.toDoubles(), gv = g.toDoubles();
        Dims dxd, dyd;
        // dX = g * op(y)^T (then transposed back if tx); dY = op(x)^T * g (transposed back if ty).
        std::vector<double> dx = tx ? matmulCore(c, yv, y.dims, ty, gv, g.dims, true, dxd)
                                    : matmulCore(c, gv, g.dims, false, yv, y.dims, !ty, dxd);
        std::vector<double> dy = ty ? matmulCore(c, gv, g.dims, true, xv, x.dims, tx, dyd)
                                    : matmulCore(c, xv, x.dims, !tx, gv, g.dims, false, dyd);
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(dx, dxd, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(dy, dyd, y.dims));
    };
}

}  // namespace rx::exec::cpu
