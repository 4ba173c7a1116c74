// Compare-and-exchange networks of the rank filters, shared by the CPU
// backend's vector loops and the CUDA kernels (ARRAYD_HD, embedded for
// NVRTC), so that both give the same order statistics (NaNs included).
#ifndef ARRAYD_KERNELS_NETWORKS_H_
#define ARRAYD_KERNELS_NETWORKS_H_

#include "kernels/types.h"

namespace arrayd {
namespace kernels {

// The median of nine values in 19 exchanges: cas(a, b) leaves the smaller
// of values a and b in a and the larger in b; after the calls value 4 is
// the median (rank 4 of 9). Each triple (0-2, 3-5, 6-8) is sorted, then
// the median of 9 is the median of three: the largest of the triples'
// minima, the median of their medians and the smallest of their maxima.
// Exchanges whose other output is unused cost one min or max once the
// compiler drops the dead half.
template <typename Cas>
ARRAYD_HD void Median9Network(Cas&& cas) {
  // Written out, no loop: a register array indexed by a loop counter would
  // live in local memory on CUDA.
  cas(0, 1);
  cas(1, 2);
  cas(0, 1);
  cas(3, 4);
  cas(4, 5);
  cas(3, 4);
  cas(6, 7);
  cas(7, 8);
  cas(6, 7);
  cas(0, 3);  // the largest minimum into 6
  cas(3, 6);
  cas(5, 8);  // the smallest maximum into 2
  cas(2, 5);
  cas(1, 4);  // the median of the medians into 4
  cas(4, 7);
  cas(1, 4);
  cas(6, 4);  // the median of 6, 4 and 2 into 4
  cas(4, 2);
  cas(6, 4);
}

}  // namespace kernels
}  // namespace arrayd

#endif  // ARRAYD_KERNELS_NETWORKS_H_
