#pragma once
// Conv/pool geometry as OpSemantics computes it, in plain structs a CUDA kernel can take by
// value, and the pool window rule both backends apply (host and device).
#include <cstdint>

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define RX_HOST_DEVICE __host__ __device__
#else
#define RX_HOST_DEVICE
#endif

namespace rx::exec {

struct Conv2dGeom {
    int64_t n, cin, h, w, cout, kh, kw, oh, ow, sh, sw, ph0, ph1, pw0, pw1, dh, dw, groups;
};

struct PoolGeom {
    int64_t n, ch, h, w, kh, kw, sh, sw, ph0, ph1, pw0, pw1, oh, ow;
    bool avg, exclusive, adaptive;
};

// Window of output (i, j): [h0, h1) x [w0, w1) clipped to the input; `count` is the divisor
// of an average (the clipped window when exclusive, else the padded one).
RX_HOST_DEVICE inline void poolWindow(const PoolGeom& g, int64_t i, int64_t j, int64_t& h0, int64_t& h1, int64_t& w0,
                                      int64_t& w1, int64_t& count) {
    if (g.adaptive) {
        h0 = i * g.h / g.oh; h1 = ((i + 1) * g.h + g.oh - 1) / g.oh;
        w0 = j * g.w / g.ow; w1 = ((j + 1) * g.w + g.ow - 1) / g.ow;
        count = (h1 - h0) * (w1 - w0);
        return;
    }
    int64_t hs = i * g.sh - g.ph0, ws = j * g.sw - g.pw0;
    int64_t he = hs + g.kh < g.h + g.ph1 ? hs + g.kh : g.h + g.ph1;
    int64_t we = ws + g.kw < g.w + g.pw1 ? ws + g.kw : g.w + g.pw1;
    int64_t full = (he - hs) * (we - ws);
    h0 = hs > 0 ? hs : 0; w0 = ws > 0 ? ws : 0;
    h1 = he < g.h ? he : g.h; w1 = we < g.w ? we : g.w;
    count = g.exclusive ? (h1 - h0) * (w1 - w0) : full;
}

}  // namespace rx::exec
