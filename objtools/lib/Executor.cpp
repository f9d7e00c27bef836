// The process's pool of threads (Executor.h): N - 1 workers made when first needed, a queue of jobs, and
// parallel loops whose caller works too.
#include "ptxlink/Executor.h"

#include "llvm/Support/Threading.h"

#include <atomic>

namespace ptxlink {

Executor::Executor(unsigned Threads) {
  Slots = Threads ? Threads : std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> Lock(M);
    Stopping = true;
  }
  Wake.notify_all();
  for (std::thread &T : Workers)
    T.join();
}

void Executor::enqueue(std::function<void()> Job) {
  {
    std::lock_guard<std::mutex> Lock(M);
    Queue.push_back(std::move(Job));
    // A worker more while there are jobs waiting and slots left (the caller holds one).
    if (Workers.size() + 1 < Slots)
      Workers.emplace_back([this] { workerLoop(); });
  }
  Wake.notify_one();
}

void Executor::workerLoop() {
  for (;;) {
    std::function<void()> Job;
    {
      std::unique_lock<std::mutex> Lock(M);
      Wake.wait(Lock, [&] { return Stopping || !Queue.empty(); });
      if (Queue.empty())
        return; // stopping
      Job = std::move(Queue.front());
      Queue.pop_front();
    }
    Job();
  }
}

namespace {
/// A loop's items and who works on it. Helpers hold it by shared_ptr: one that starts after the loop is
/// over finds it closed and touches nothing of the caller's.
struct Loop {
  std::atomic<size_t> Next;
  size_t End;
  llvm::function_ref<void(size_t)> Fn;
  std::mutex M;
  std::condition_variable Idle;
  unsigned Running = 0;
  bool Closed = false;
  Loop(size_t Begin, size_t End, llvm::function_ref<void(size_t)> Fn) : Next(Begin), End(End), Fn(Fn) {}
  void work() {
    for (size_t I; (I = Next++) < End;)
      Fn(I);
  }
};
} // namespace

void Executor::parallelFor(size_t Begin, size_t End, llvm::function_ref<void(size_t)> Fn) {
  if (Begin >= End)
    return;
  size_t Helpers = std::min<size_t>(End - Begin - 1, Slots - 1);
  if (Helpers == 0) {
    for (size_t I = Begin; I < End; ++I)
      Fn(I);
    return;
  }
  auto L = std::make_shared<Loop>(Begin, End, Fn);
  for (size_t H = 0; H < Helpers; ++H)
    enqueue([L] {
      {
        std::lock_guard<std::mutex> Lock(L->M);
        if (L->Closed || L->Next >= L->End)
          return;
        ++L->Running;
      }
      L->work();
      std::lock_guard<std::mutex> Lock(L->M);
      if (--L->Running == 0)
        L->Idle.notify_all();
    });
  L->work();
  std::unique_lock<std::mutex> Lock(L->M);
  L->Closed = true;
  L->Idle.wait(Lock, [&] { return L->Running == 0; });
}

struct Executor::Task::Shared {
  std::function<void()> Work;
  std::atomic<bool> Claimed{false};
  std::mutex M;
  std::condition_variable Done;
  bool Finished = false;
  void run() {
    Work();
    Work = nullptr;
    std::lock_guard<std::mutex> Lock(M);
    Finished = true;
    Done.notify_all();
  }
};

Executor::Task Executor::async(std::function<void()> Work) {
  Task T;
  T.State = std::make_shared<Task::Shared>();
  T.State->Work = std::move(Work);
  if (Slots > 1)
    enqueue([S = T.State] {
      if (!S->Claimed.exchange(true))
        S->run();
    });
  return T;
}

void Executor::Task::wait() {
  if (!State)
    return;
  if (!State->Claimed.exchange(true)) {
    State->run();
  } else {
    std::unique_lock<std::mutex> Lock(State->M);
    State->Done.wait(Lock, [&] { return State->Finished; });
  }
  State.reset();
}

} // namespace ptxlink
