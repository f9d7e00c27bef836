// One pool of threads for a whole process, bounded by `--threads`.
//
// The problem: a link runs work in parallel in many places (reading inputs, printing and compressing
// images, a ptxas process per unit, nvlink per arch, cache upkeep beside the output's writing). When each
// place starts threads of its own (std::thread, std::async, LLVM's process-wide parallelFor), `--threads N`
// bounds none of the totals: ptxas runs beside a background thread beside a compressing thread. An Executor
// has N slots: the thread that calls it counts as one, N - 1 workers serve the rest, and every piece of
// parallel work of the process goes through it, so at most N threads work (and at most N tools run) at any
// time. With N = 1 there is no worker: work "beside" the caller runs when the caller waits for it.
//
// Nested use is safe: a parallelFor inside a task runs its own items on the calling thread and takes
// workers only while they are idle, and never waits for work that has not started.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ptxlink {

class Executor {
public:
  /// Threads: the most threads working at once, the caller's included (0: the machine's hardware threads).
  explicit Executor(unsigned Threads = 0);
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;
  /// Runs what is still queued (a Task already run by its waiter does nothing) and stops the workers.
  ~Executor();

  unsigned threads() const { return Slots; }

  /// Fn(I) for every I in [Begin, End), on the calling thread and on idle workers; items are taken in
  /// order (the first started first). Returns when all have run.
  void parallelFor(size_t Begin, size_t End, llvm::function_ref<void(size_t)> Fn);

  /// Work beside the caller's: run by a worker when one is free, or by whoever waits for it first.
  class Task {
  public:
    Task() = default;
    bool valid() const { return State != nullptr; }
    /// Runs the work here if no worker has started it, else waits for it. Then the Task is empty.
    void wait();

  private:
    friend class Executor;
    struct Shared;
    std::shared_ptr<Shared> State;
  };
  Task async(std::function<void()> Work);

  /// A Task with a result: get() waits (or runs it) and gives the value, once.
  template <typename T> class Future {
  public:
    Future() = default;
    bool valid() const { return Work.valid(); }
    void wait() { Work.wait(); }
    T get() {
      Work.wait();
      T V = std::move(**Value);
      Value.reset();
      return V;
    }

  private:
    friend class Executor;
    Task Work;
    std::shared_ptr<std::optional<T>> Value;
  };
  template <typename Fn> auto run(Fn F) -> Future<decltype(F())> {
    Future<decltype(F())> Result;
    Result.Value = std::make_shared<std::optional<decltype(F())>>();
    Result.Work = async([V = Result.Value, F = std::move(F)]() mutable { V->emplace(F()); });
    return Result;
  }

private:
  void enqueue(std::function<void()> Job);
  void workerLoop();

  unsigned Slots;
  std::mutex M;
  std::condition_variable Wake;
  std::deque<std::function<void()>> Queue;
  std::vector<std::thread> Workers;
  bool Stopping = false;
};

} // namespace ptxlink
