// The process's pool (Executor.h): at most N threads work at once, the caller's included, however the
// work nests; each pool keeps its own bound (LLVM's process-wide parallelFor kept the first link's
// --threads for every later link in the process); work beside the caller runs even with one thread.
#include "ptxlink/Executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace ptxlink;

namespace {

/// Counts the items under way at once.
struct Overlap {
  std::atomic<int> Now{0}, Most{0};
  void work() {
    int N = ++Now;
    for (int M = Most; N > M && !Most.compare_exchange_weak(M, N);)
      ;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    --Now;
  }
};

TEST(Executor, BoundsTheItemsUnderWay) {
  for (unsigned N : {1u, 2u, 3u, 5u}) {
    Executor Pool(N);
    Overlap O;
    Pool.parallelFor(0, 40, [&](size_t) { O.work(); });
    EXPECT_LE(O.Most, int(N)) << N << " threads";
    EXPECT_GE(O.Most, int(std::min(N, 2u))) << N << " threads"; // the workers do take part
  }
}

TEST(Executor, BoundsNestedLoops) {
  Executor Pool(3);
  Overlap O;
  std::atomic<int> Items{0};
  Pool.parallelFor(0, 6, [&](size_t) {
    Pool.parallelFor(0, 6, [&](size_t) {
      O.work();
      ++Items;
    });
  });
  EXPECT_EQ(Items, 36);
  EXPECT_LE(O.Most, 3);
  EXPECT_GE(O.Most, 2);
}

TEST(Executor, BoundsLoopsBesideATask) {
  Executor Pool(2);
  Overlap O;
  // A task that works beside the caller takes a slot: the caller's loop then runs alone.
  std::atomic<bool> Release{false};
  Executor::Task Beside = Pool.async([&] {
    ++O.Now;
    ++O.Most;
    while (!Release)
      std::this_thread::yield();
    --O.Now;
  });
  while (O.Most == 0) // started by the worker
    std::this_thread::yield();
  Pool.parallelFor(0, 10, [&](size_t) { O.work(); });
  Release = true;
  Beside.wait();
  EXPECT_EQ(O.Most, 2);
}

TEST(Executor, OneThreadRunsTasksWhenWaitedFor) {
  Executor Pool(1);
  std::thread::id Ran;
  Executor::Task T = Pool.async([&] { Ran = std::this_thread::get_id(); });
  T.wait();
  EXPECT_EQ(Ran, std::this_thread::get_id());
  EXPECT_FALSE(T.valid());
  Executor::Future<int> F = Pool.run([] { return 42; });
  EXPECT_EQ(F.get(), 42);
}

TEST(Executor, TasksRunBesideTheCaller) {
  Executor Pool(2);
  std::atomic<bool> Started{false};
  Executor::Task T = Pool.async([&] { Started = true; });
  for (int I = 0; I < 2000 && !Started; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(Started); // by the worker, before anyone waited
  T.wait();
}

TEST(Executor, EachPoolHasItsOwnBound) {
  for (unsigned N : {1u, 4u, 2u}) {
    Executor Pool(N);
    Overlap O;
    Pool.parallelFor(0, 24, [&](size_t) { O.work(); });
    EXPECT_LE(O.Most, int(N));
    EXPECT_GE(O.Most, int(N == 4 ? 3 : N)); // not the first pool's bound
  }
}

} // namespace
