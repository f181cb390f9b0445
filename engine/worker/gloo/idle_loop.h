// Gloo's event loop asleep while the rank is idle.
//
// Debian's Gloo (libgloo 0.0~git20220518) runs one thread per context
// (gloo::transport::tcp::Loop::run) that calls epoll_wait with a 10 ms
// timeout: each rank wakes 100 times a second for nothing, even when no op
// is in flight (the idle window's ranks). The tick has two uses in Gloo:
// seeing `done_` when the loop is destroyed, and letting
// unregisterDescriptor (another thread) wait for one loop turn. Neither
// happens while the rank waits for the engine's next message, so then the
// loop may sleep until a socket has an event or the rank wakes it.
//
// How: collviz-rank defines epoll_wait (the executable's definition comes
// before libc's for libgloo's calls). A call made from libgloo while the
// rank is idle adds an eventfd of ours to that epoll set and waits without
// a timeout; glooLoopIdle(false) writes the eventfd, so the loop turns at
// once and goes back to its 10 ms ticks before the rank does anything (a
// run, or ending the context). Every call from libgloo has our eventfd's
// event taken out of what it returns (Gloo reads each event's pointer as
// its own handler). Calls from anywhere else (Open MPI's event library in
// the MPI module) go straight to the kernel, unchanged.
#pragma once

namespace collviz {

// The rank waits for the engine (true) or is about to act (false). The
// second wakes a sleeping loop before it returns.
void glooLoopIdle(bool idle);

}  // namespace collviz
