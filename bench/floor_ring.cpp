// The bare ring of bench_ddp._floor_hook(work="compiled"), in C++: context for the DDP
// target, not a library part. P = 2 only. The same steps as the Python bare ring (a local scale,
// 16-bit words, the reduce-scatter and the all-gather exchange as gloo point-to-point messages)
// with the encoding, the sum and the decoding in compiled loops and the GIL released throughout
// (products and quotients in float64). No header, ledger, noise, pads or checks.
#include <torch/extension.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

void exchange(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, at::Tensor out, at::Tensor into,
              int other, int tag) {
  std::vector<at::Tensor> r{into}, s{out};
  auto rw = pg->recv(r, other, tag);  // receive first, as the Python rings do
  auto sw = pg->send(s, other, tag);
  rw->wait();
  sw->wait();
}

}  // namespace

// Average the float32 bucket ``t`` (n entries) with the other rank's, in place. ``words`` (n) and
// ``inc`` (n - n / 2) are int16 scratch buffers reused between calls.
void ring2(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, at::Tensor t, int64_t rank,
           at::Tensor words, at::Tensor inc) {
  TORCH_CHECK(t.is_contiguous() && t.scalar_type() == at::kFloat, "t: contiguous float32");
  TORCH_CHECK(words.numel() == t.numel() && inc.numel() >= t.numel() - t.numel() / 2,
              "words, inc: n and n - n / 2 int16 entries");
  const int64_t n = t.numel(), half = n / 2;
  float* x = t.data_ptr<float>();
  auto* w = reinterpret_cast<uint16_t*>(words.data_ptr<int16_t>());
  const auto* in = reinterpret_cast<const uint16_t*>(inc.data_ptr<int16_t>());
  // max |x|: finite floats without their sign bit order as their bit patterns (a loop that
  // vectorizes, unlike a float max that must honour NaN)
  const auto* xb = reinterpret_cast<const uint32_t*>(x);
  uint32_t mb = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t a = xb[i] & 0x7fffffffu;
    mb = a > mb ? a : mb;
  }
  float mx;
  std::memcpy(&mx, &mb, sizeof mx);
  const double scale = 16383.0 / std::max(static_cast<double>(mx), 1e-30) / 2;  // |sum| < 2^15
  for (int64_t i = 0; i < n; ++i)
    w[i] = static_cast<uint16_t>(static_cast<int16_t>(std::rint(x[i] * scale)));
  const int other = 1 - static_cast<int>(rank);
  const int64_t mlo = rank == 0 ? 0 : half, mhi = rank == 0 ? half : n;  // this rank's chunk
  const int64_t tlo = rank == 0 ? half : 0, thi = rank == 0 ? n : half;  // the other's
  exchange(pg, words.narrow(0, tlo, thi - tlo), inc.narrow(0, 0, mhi - mlo), other, 1);
  for (int64_t i = mlo; i < mhi; ++i) w[i] = static_cast<uint16_t>(w[i] + in[i - mlo]);
  exchange(pg, words.narrow(0, mlo, mhi - mlo), words.narrow(0, tlo, thi - tlo), other, 2);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(static_cast<int16_t>(w[i]) / (2 * scale));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("ring2", &ring2, py::call_guard<py::gil_scoped_release>(),
        "Average a float32 bucket with the other rank's over a compiled P = 2 ring, in place.");
}
