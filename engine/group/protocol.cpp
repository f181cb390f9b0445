#include "engine/group/protocol.h"

namespace collviz::protocol {

std::string toHex(const std::vector<char>& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    out += kHex[u >> 4];
    out += kHex[u & 15];
  }
  return out;
}

std::vector<char> fromHex(const std::string& hex) {
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 0;
  };
  std::vector<char> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<char>((nib(hex[2 * i]) << 4) | nib(hex[2 * i + 1]));
  return out;
}

nlohmann::json textToJson(const Text& t) {
  if (t.literal) return nlohmann::json{{"lit", t.id}};
  nlohmann::json args = nlohmann::json::array();
  for (const Text& a : t.args) args.push_back(textToJson(a));
  return nlohmann::json{{"id", t.id}, {"args", std::move(args)}};
}

Text textFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return {};
  if (auto it = j.find("lit"); it != j.end() && it->is_string()) return lit(it->get<std::string>());
  auto id = j.find("id");
  if (id == j.end() || !id->is_string()) return {};
  Text t;
  t.id = id->get<std::string>();
  if (auto a = j.find("args"); a != j.end() && a->is_array())
    for (const auto& x : *a) t.args.push_back(textFromJson(x));
  return t;
}

nlohmann::json errorMessage(const Error& e) {
  return nlohmann::json{{"type", "error"}, {"message", e.message}, {"text", textToJson(e.text)}};
}

Error errorFrom(const std::string& body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{body};
  const std::string m = j.value("message", body);
  if (auto t = j.find("text"); t != j.end()) {
    Text text = textFromJson(*t);
    if (!text.empty() && text.english() == m) return Error{std::move(text)};
  }
  return Error{m};
}

}  // namespace collviz::protocol
