// The stand-in NCCL's communicator (tests only): the ranks are separate
// processes joined by Unix stream sockets in the abstract namespace (named
// by the unique id's random key and the rank; nothing is left in /tmp or
// /dev/shm, and they vanish with the processes). Each peer connection has a
// reader thread that drains the peer's messages into an inbox, so a send
// never waits for the peer to post its receive; a peer that closes (it
// ended, or aborted) is a remote error for an op that still needs it.
#pragma once

#include <nccl.h>
#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace collviz::standin {

enum class OpKind : std::int32_t {
  all_reduce, broadcast, reduce, all_gather, reduce_scatter, all_to_all, gather, scatter, send, recv
};
const char* opName(OpKind k);  // "ncclAllReduce", ...

struct Header {
  std::uint32_t magic = 0;
  std::uint32_t type = 0;     // kData or kAck
  std::uint64_t index = 0;    // collectives: the op's place among this communicator's collectives
  std::int32_t op = 0, dtype = 0, redop = 0, root = 0;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;    // the payload that follows
};
inline constexpr std::uint32_t kMagic = 0x53544e44;  // "STND"
inline constexpr std::uint32_t kData = 1, kAck = 2;

struct Message {
  Header h;
  std::vector<char> data;
};

struct Peer {
  int fd = -1;  // -1: this rank itself
  pid_t pid = 0;
  std::mutex send_mu;
  std::thread reader;
  // Under the communicator's mutex:
  std::deque<Message> inbox;
  std::uint64_t acks = 0;
  bool closed = false;
};

class Comm {
 public:
  Comm(int rank, int nranks, int device, int version)
      : rank(rank), nranks(nranks), device(device), version(version) {}
  ~Comm();
  const int rank, nranks, device, version;

  // Starts the reader threads once the connections are made.
  void start();
  // Writes one message; false (and the remote error set) when the peer is gone.
  bool send(int peer, const Header& h, const void* data);
  // The next message from `peer`; false once the communicator is aborted.
  // A peer that is gone with nothing left sets the remote error and waits
  // for the abort, as a device waits on a lost peer.
  bool receive(int peer, Message* m);
  bool waitAcks(int peer, std::uint64_t n);
  // An asynchronous error (the first one stays), said on stderr and kept as
  // NCCL's last error.
  void setAsync(ncclResult_t r, const std::string& text);
  ncclResult_t asyncError();
  // Waits until aborted (a device hang); returns false.
  bool hangUntilAbort();
  void abort();
  bool aborted();
  // Ordering of the fused groups across streams.
  std::uint64_t issue(std::uint64_t collectives, std::uint64_t* first_index);
  bool waitTurn(std::uint64_t group);
  void finish(std::uint64_t group);
  // Waits for every issued group (ncclCommDestroy).
  void drain();

  std::vector<std::unique_ptr<Peer>> peers;  // [nranks], peers[rank] is this rank
  // Point-to-point sends made to each peer so far (the stream work of one
  // group at a time touches it: groups run in order).
  std::vector<std::uint64_t> p2p_sent;

 private:
  void read(int peer);
  std::mutex mu_;
  std::condition_variable cv_;
  bool aborted_ = false;
  ncclResult_t async_ = ncclSuccess;
  std::uint64_t groups_ = 0, finished_ = 0, collectives_ = 0;
};

// ncclComm_t's struct: a handle the API checks before use.
}  // namespace collviz::standin

struct ncclComm {
  std::uint64_t magic;
  std::shared_ptr<collviz::standin::Comm> c;
};

namespace collviz::standin {

// NCCL's last error (process-wide, as NCCL's), said on stderr too.
void setLastError(const std::string& text);
const char* lastError();

// The bootstrap: joins `nranks` processes that hold the same unique id.
// `device`: the caller's visible device; `physical`: the stand-in device it
// is, which two ranks compare to find that they share one.
ncclResult_t bootstrap(const ncclUniqueId& id, int nranks, int rank, int device, int physical, int version,
                       std::shared_ptr<Comm>* out);
void makeUniqueId(ncclUniqueId* id);

}  // namespace collviz::standin
