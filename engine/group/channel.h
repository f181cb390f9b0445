// Channel: length-prefixed messages over a Unix socketpair inherited by the
// worker, with optional file-descriptor passing (SCM_RIGHTS) for the shared
// memory. No listening socket anywhere.
#pragma once

#include <sys/uio.h>

#include <chrono>
#include <string>

#include "engine/text.h"

namespace collviz {

struct Message {
  std::string body;  // JSON text
  int fd = -1;       // received descriptor, owned by the receiver
};

class Channel {
 public:
  Channel() = default;
  explicit Channel(int fd) : fd_(fd) {}
  ~Channel();
  Channel(Channel&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Channel& operator=(Channel&& o) noexcept;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void close();

  Status send(const std::string& body, int pass_fd = -1) { return send(body.data(), body.size(), pass_fd); }
  Status send(const char* body, std::size_t n, int pass_fd = -1);
  // One message of `head` then `body` (gathered: neither is copied).
  Status send(const char* head, std::size_t head_n, const char* body, std::size_t n);
  // Wait up to `timeout` (negative: forever) for one message.
  // Errors: "closed" when the peer has gone, "timeout" when none came.
  Result<Message> recv(std::chrono::milliseconds timeout);
  // The same, refusing (and leaving unread) a message longer than
  // `max_bytes`: "message too large".
  Result<Message> recv(std::chrono::milliseconds timeout, std::size_t max_bytes);
  // One message read straight into `dst` (at most `max_bytes`): its length.
  Result<std::size_t> recvInto(char* dst, std::size_t max_bytes, std::chrono::milliseconds timeout);
  // One message sent as head then body: its first `head_n` bytes into
  // `head`, the rest straight into `dst` (at most `max_bytes`): the rest's length.
  Result<std::size_t> recvInto(char* head, std::size_t head_n, char* dst, std::size_t max_bytes,
                               std::chrono::milliseconds timeout);

  // A connected pair; the second end is meant for the child.
  static Result<std::pair<Channel, Channel>> pair();

 private:
  Status waitReadable(std::chrono::milliseconds timeout);
  Status readExact(char* p, size_t n, int* fd_out);
  Status sendv(iovec* iov, int count, int pass_fd);
  int fd_ = -1;
};

}  // namespace collviz
