// FleetRandom: the fleet generator's source of randomness. Written out here rather than taken
// from <random>: the standard distributions may differ between standard libraries, and the
// generator promises the same bytes for the same seed whichever compiler built it.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_RANDOM_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_RANDOM_H_

#include <cmath>
#include <cstdint>

namespace perfhive::fleet {

// SplitMix64: mixes a seed (or a seed and a stream number) into well-spread 64 bits.
inline uint64_t MixSeed(uint64_t value) {
  value += 0x9E3779B97F4A7C15ull;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
  return value ^ (value >> 31);
}

// xoshiro256** with the few distributions the generator draws from.
class FleetRandom {
 public:
  // `stream` separates the independent sequences of one seed (one per host).
  explicit FleetRandom(uint64_t seed, uint64_t stream = 0) {
    uint64_t mixed = MixSeed(seed ^ MixSeed(stream));
    for (uint64_t& word : state_) {
      mixed = MixSeed(mixed);
      word = mixed;
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotate(state_[1] * 5, 7) * 9;
    const uint64_t shifted = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= shifted;
    state_[3] = Rotate(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, bound); bound > 0.
  uint64_t Below(uint64_t bound) { return Next() % bound; }

  // Standard normal (Box-Muller; one draw per call keeps the sequence simple to reason about).
  double Normal() {
    const double u1 = 1.0 - Uniform();  // (0, 1]: the log is finite
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  // A factor with mean 1 whose logarithm has standard deviation `sigma`.
  double LogNormalFactor(double sigma) { return std::exp(sigma * Normal() - 0.5 * sigma * sigma); }

  // A Poisson count: Knuth's product of uniforms for small means, the normal approximation
  // (rounded, never negative) for large ones, where the difference no longer shows.
  uint64_t Poisson(double mean) {
    if (!(mean > 0)) return 0;
    if (mean < 30) {
      const double limit = std::exp(-mean);
      uint64_t count = 0;
      for (double product = Uniform(); product > limit; product *= Uniform()) ++count;
      return count;
    }
    const double draw = std::round(mean + std::sqrt(mean) * Normal());
    return draw > 0 ? static_cast<uint64_t>(draw) : 0;
  }

 private:
  static uint64_t Rotate(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t state_[4];
};

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_RANDOM_H_
