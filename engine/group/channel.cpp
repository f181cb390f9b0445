#include "engine/group/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace collviz {

Channel::~Channel() { close(); }

Channel& Channel::operator=(Channel&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

void Channel::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<std::pair<Channel, Channel>> Channel::pair() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Error{say("{0}: {1}", "socketpair", std::strerror(errno))};
  return std::pair<Channel, Channel>(Channel(sv[0]), Channel(sv[1]));
}

Status Channel::send(const char* body, std::size_t size, int pass_fd) {
  const uint32_t len = static_cast<uint32_t>(size);
  iovec iov[2] = {{const_cast<uint32_t*>(&len), sizeof(len)},
                  {const_cast<char*>(body), size}};
  return sendv(iov, 2, pass_fd);
}

Status Channel::send(const char* head, std::size_t head_n, const char* body, std::size_t size) {
  const uint32_t len = static_cast<uint32_t>(head_n + size);
  iovec iov[3] = {{const_cast<uint32_t*>(&len), sizeof(len)},
                  {const_cast<char*>(head), head_n},
                  {const_cast<char*>(body), size}};
  return sendv(iov, 3, -1);
}

Status Channel::sendv(iovec* iov, int count, int pass_fd) {
  if (fd_ < 0) return Error{say("closed")};
  std::size_t total = 0;
  for (int i = 0; i < count; ++i) total += iov[i].iov_len;
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = std::size_t(count);
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int))];
  if (pass_fd >= 0) {
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof(ctrl);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
  }
  std::size_t sent = 0;
  while (sent < total) {
    ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{errno == EPIPE ? say("closed") : say("{0}: {1}", "send", std::strerror(errno))};
    }
    sent += std::size_t(n);
    msg.msg_control = nullptr;  // the descriptor goes with the first bytes only
    msg.msg_controllen = 0;
    // Advance the iovecs past what was sent.
    std::size_t skip = std::size_t(n);
    while (msg.msg_iovlen > 0 && skip >= msg.msg_iov[0].iov_len) {
      skip -= msg.msg_iov[0].iov_len;
      ++msg.msg_iov;
      --msg.msg_iovlen;
    }
    if (msg.msg_iovlen > 0) {
      msg.msg_iov[0].iov_base = static_cast<char*>(msg.msg_iov[0].iov_base) + skip;
      msg.msg_iov[0].iov_len -= skip;
    }
  }
  return {};
}

Status Channel::readExact(char* p, size_t n, int* fd_out) {
  std::size_t got = 0;
  while (got < n) {
    iovec iov{p + got, n - got};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(int))];
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof(ctrl);
    ssize_t r = ::recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Error{say("{0}: {1}", "recv", std::strerror(errno))};
    }
    if (r == 0) return Error{say("closed")};
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
        if (fd_out && *fd_out < 0) *fd_out = fd;
        else ::close(fd);
      }
    }
    got += std::size_t(r);
  }
  return {};
}

Result<Message> Channel::recv(std::chrono::milliseconds timeout) { return recv(timeout, 64u << 20); }

// Until the channel has bytes to read: "closed", "timeout" (compared by its
// English: .message == "timeout") or poll's error.
Status Channel::waitReadable(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return Error{say("closed")};
  pollfd pfd{fd_, POLLIN, 0};
  for (;;) {
    int pr = ::poll(&pfd, 1, timeout.count() < 0 ? -1 : int(timeout.count()));
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) return Error{say("{0}: {1}", "poll", std::strerror(errno))};
    if (pr == 0) return Error{say("timeout")};
    return {};
  }
}

Result<std::size_t> Channel::recvInto(char* dst, std::size_t max_bytes, std::chrono::milliseconds timeout) {
  if (Status st = waitReadable(timeout); !st) return st.error();
  uint32_t len = 0;
  if (Status st = readExact(reinterpret_cast<char*>(&len), sizeof(len), nullptr); !st) return st.error();
  if (len > max_bytes) return Error{say("message too large")};
  if (Status st = readExact(dst, len, nullptr); !st) return st.error();
  return std::size_t(len);
}

Result<std::size_t> Channel::recvInto(char* head, std::size_t head_n, char* dst, std::size_t max_bytes,
                                      std::chrono::milliseconds timeout) {
  if (Status st = waitReadable(timeout); !st) return st.error();
  uint32_t len = 0;
  if (Status st = readExact(reinterpret_cast<char*>(&len), sizeof(len), nullptr); !st) return st.error();
  if (len <= head_n) return Error{say("an empty frame inside a buffer")};
  if (len - head_n > max_bytes) return Error{say("message too large")};
  if (Status st = readExact(head, head_n, nullptr); !st) return st.error();
  if (Status st = readExact(dst, len - head_n, nullptr); !st) return st.error();
  return std::size_t(len - head_n);
}

Result<Message> Channel::recv(std::chrono::milliseconds timeout, std::size_t max_bytes) {
  if (Status st = waitReadable(timeout); !st) return st.error();
  Message m;
  uint32_t len = 0;
  if (Status st = readExact(reinterpret_cast<char*>(&len), sizeof(len), &m.fd); !st) {
    if (m.fd >= 0) ::close(m.fd);
    return st.error();
  }
  if (len > max_bytes) return Error{say("message too large")};
  m.body.resize(len);
  if (Status st = readExact(m.body.data(), len, &m.fd); !st) {
    if (m.fd >= 0) ::close(m.fd);
    return st.error();
  }
  return m;
}

}  // namespace collviz
