// Prints every Chinese text of the string table, its {0}, {1}, ... filled
// with a number, one a line: what english_words.py reads to find English
// left in a translation (ctest lang_table_words).
#include <cstdio>
#include <string>

#include "app/lang/lang.h"

int main() {
  using namespace collviz;
  for (const Translation& t : translations()) {
    std::string zh(t.zh);
    for (int k = 0; k < 10; ++k) {
      const std::string mark = "{" + std::to_string(k) + "}";
      for (std::size_t at = zh.find(mark); at != std::string::npos; at = zh.find(mark)) zh.replace(at, mark.size(), "7");
    }
    for (char& c : zh)
      if (c == '\n') c = ' ';
    std::printf("%s\n", zh.c_str());
  }
  return 0;
}
