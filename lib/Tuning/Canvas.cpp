//===- Canvas.cpp - pixels, a 5x7 font and a PNG encoder ------------------===//

#include "Canvas.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace kfuse {
namespace chart {
namespace {

/// 5x7 glyphs, one row per entry, the leftmost pixel in bit 4.
struct Glyph {
  char C;
  std::array<uint8_t, 7> Rows;
};

const Glyph Font[] = {
    {'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}},
    {'2', {14, 17, 1, 2, 4, 8, 31}},     {'3', {30, 1, 1, 14, 1, 1, 30}},
    {'4', {2, 6, 10, 18, 31, 2, 2}},     {'5', {31, 16, 30, 1, 1, 17, 14}},
    {'6', {6, 8, 16, 30, 17, 17, 14}},   {'7', {31, 1, 2, 4, 8, 8, 8}},
    {'8', {14, 17, 17, 14, 17, 17, 14}}, {'9', {14, 17, 17, 15, 1, 2, 12}},
    {'a', {0, 0, 14, 1, 15, 17, 15}},    {'b', {16, 16, 22, 25, 17, 17, 30}},
    {'c', {0, 0, 14, 16, 16, 17, 14}},   {'d', {1, 1, 13, 19, 17, 17, 15}},
    {'e', {0, 0, 14, 17, 31, 16, 14}},   {'f', {6, 9, 8, 28, 8, 8, 8}},
    {'g', {0, 15, 17, 17, 15, 1, 14}},   {'h', {16, 16, 22, 25, 17, 17, 17}},
    {'i', {4, 0, 12, 4, 4, 4, 14}},      {'j', {2, 0, 6, 2, 2, 18, 12}},
    {'k', {16, 16, 18, 20, 24, 20, 18}}, {'l', {12, 4, 4, 4, 4, 4, 14}},
    {'m', {0, 0, 26, 21, 21, 17, 17}},   {'n', {0, 0, 22, 25, 17, 17, 17}},
    {'o', {0, 0, 14, 17, 17, 17, 14}},   {'p', {0, 0, 30, 17, 30, 16, 16}},
    {'q', {0, 0, 13, 19, 15, 1, 1}},     {'r', {0, 0, 22, 25, 16, 16, 16}},
    {'s', {0, 0, 14, 16, 14, 1, 30}},    {'t', {8, 8, 28, 8, 8, 9, 6}},
    {'u', {0, 0, 17, 17, 17, 19, 13}},   {'v', {0, 0, 17, 17, 17, 10, 4}},
    {'w', {0, 0, 17, 17, 21, 21, 10}},   {'x', {0, 0, 17, 10, 4, 10, 17}},
    {'y', {0, 0, 17, 17, 15, 1, 14}},    {'z', {0, 0, 31, 2, 4, 8, 31}},
    {'-', {0, 0, 0, 31, 0, 0, 0}},       {'.', {0, 0, 0, 0, 0, 12, 12}},
    {'/', {0, 1, 2, 4, 8, 16, 0}},       {'%', {24, 25, 2, 4, 8, 19, 3}},
    {':', {0, 12, 12, 0, 12, 12, 0}},    {'_', {0, 0, 0, 0, 0, 0, 31}},
    {'(', {2, 4, 8, 8, 8, 4, 2}},        {')', {8, 4, 2, 2, 2, 4, 8}},
    {',', {0, 0, 0, 0, 12, 4, 8}},       {'\'', {4, 4, 8, 0, 0, 0, 0}},
    {'+', {0, 4, 4, 31, 4, 4, 0}},       {'=', {0, 0, 31, 0, 31, 0, 0}},
    {'<', {2, 4, 8, 16, 8, 4, 2}},       {'>', {8, 4, 2, 1, 2, 4, 8}},
    {'*', {0, 4, 21, 14, 21, 4, 0}},
};

uint32_t crc32(const std::string &Data) {
  static std::array<uint32_t, 256> Table = [] {
    std::array<uint32_t, 256> T{};
    for (uint32_t N = 0; N < 256; ++N) {
      uint32_t C = N;
      for (int K = 0; K < 8; ++K)
        C = C & 1 ? 0xedb88320u ^ (C >> 1) : C >> 1;
      T[N] = C;
    }
    return T;
  }();
  uint32_t C = 0xffffffffu;
  for (unsigned char B : Data)
    C = Table[(C ^ B) & 0xff] ^ (C >> 8);
  return C ^ 0xffffffffu;
}

void be32(std::string &Out, uint32_t V) {
  for (int Shift = 24; Shift >= 0; Shift -= 8)
    Out += static_cast<char>((V >> Shift) & 0xff);
}

void chunk(std::string &Out, const char *Type, const std::string &Data) {
  be32(Out, static_cast<uint32_t>(Data.size()));
  std::string Body = std::string(Type, 4) + Data;
  Out += Body;
  be32(Out, crc32(Body));
}

/// Bits in deflate's order: values LSB first, Huffman codes MSB first.
class BitWriter {
public:
  void bits(uint32_t Value, int Count) {
    for (int I = 0; I < Count; ++I)
      put((Value >> I) & 1);
  }
  void code(uint32_t Code, int Length) {
    for (int I = Length - 1; I >= 0; --I)
      put((Code >> I) & 1);
  }
  std::string finish() {
    if (Used)
      Out += static_cast<char>(Byte);
    return Out;
  }

private:
  std::string Out;
  uint32_t Byte = 0;
  int Used = 0;
  void put(uint32_t Bit) {
    Byte |= Bit << Used;
    if (++Used == 8) {
      Out += static_cast<char>(Byte);
      Byte = 0;
      Used = 0;
    }
  }
};

/// A literal/length symbol in deflate's fixed Huffman code (RFC 1951, 3.2.6).
void fixedSymbol(BitWriter &W, unsigned Symbol) {
  if (Symbol < 144)
    W.code(0x30 + Symbol, 8);
  else if (Symbol < 256)
    W.code(0x190 + Symbol - 144, 9);
  else if (Symbol < 280)
    W.code(Symbol - 256, 7);
  else
    W.code(0xc0 + Symbol - 280, 8);
}

void fixedLength(BitWriter &W, unsigned Length) {
  static const unsigned Base[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                  31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const unsigned Extra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                   2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  unsigned I = 28;
  while (Base[I] > Length)
    --I;
  fixedSymbol(W, 257 + I);
  W.bits(Length - Base[I], static_cast<int>(Extra[I]));
}

void fixedDistance(BitWriter &W, unsigned Distance) {
  unsigned Code = 0, Base = 1, ExtraBits = 0;
  for (unsigned C = 0; C < 30; ++C) {
    unsigned Bits = C < 4 ? 0 : C / 2 - 1;
    unsigned B = C < 4 ? C + 1 : ((2 + C % 2) << Bits) + 1;
    if (B > Distance)
      break;
    Code = C;
    Base = B;
    ExtraBits = Bits;
  }
  W.code(Code, 5);
  W.bits(Distance - Base, static_cast<int>(ExtraBits));
}

/// zlib around one fixed-Huffman deflate block. Charts repeat whole pixels
/// and rows, so matches one pixel or one row back are all it looks for.
std::string zlibDeflate(const std::string &Raw, unsigned RowBytes) {
  BitWriter W;
  W.bits(1, 1); // Last block.
  W.bits(1, 2); // Fixed Huffman codes.
  size_t Pos = 0;
  while (Pos < Raw.size()) {
    unsigned BestLength = 0, BestDistance = 0;
    for (unsigned Distance : {3u, RowBytes}) {
      if (Distance > Pos || Distance > 32768)
        continue;
      unsigned Length = 0;
      while (Length < 258 && Pos + Length < Raw.size() &&
             Raw[Pos + Length] == Raw[Pos + Length - Distance])
        ++Length;
      if (Length > BestLength) {
        BestLength = Length;
        BestDistance = Distance;
      }
    }
    if (BestLength >= 3) {
      fixedLength(W, BestLength);
      fixedDistance(W, BestDistance);
      Pos += BestLength;
    } else {
      fixedSymbol(W, static_cast<unsigned char>(Raw[Pos++]));
    }
  }
  fixedSymbol(W, 256);
  std::string Out("\x78\x01", 2);
  Out += W.finish();
  uint32_t A = 1, B = 0;
  for (unsigned char C : Raw) {
    A = (A + C) % 65521;
    B = (B + A) % 65521;
  }
  be32(Out, (B << 16) | A);
  return Out;
}

} // namespace

std::string Canvas::png() const {
  std::string Out("\x89PNG\r\n\x1a\n", 8);
  std::string Header;
  be32(Header, W);
  be32(Header, H);
  Header += std::string("\x08\x02\x00\x00\x00", 5); // 8-bit RGB, no interlace.
  chunk(Out, "IHDR", Header);
  std::string Raw;
  Raw.reserve(size_t(H) * (1 + 3 * W));
  for (int Y = 0; Y < H; ++Y) {
    Raw += '\0'; // No filter.
    for (int X = 0; X < W; ++X) {
      const Rgb &P = Pixels[size_t(Y) * W + X];
      Raw += static_cast<char>(P.R);
      Raw += static_cast<char>(P.G);
      Raw += static_cast<char>(P.B);
    }
  }
  chunk(Out, "IDAT", zlibDeflate(Raw, 1 + 3 * static_cast<unsigned>(W)));
  chunk(Out, "IEND", "");
  return Out;
}


void Canvas::text(int X, int Y, const std::string &S, Rgb C) {
  for (char Ch : S) {
    char L = static_cast<char>(std::tolower(static_cast<unsigned char>(Ch)));
    for (const Glyph &G : Font)
      if (G.C == L)
        for (int Row = 0; Row < 7; ++Row)
          for (int Col = 0; Col < 5; ++Col)
            if (G.Rows[Row] & (16 >> Col))
              fill(X + Col * Scale, Y + Row * Scale, Scale, Scale, C);
    X += CharWidth;
  }
}


void Canvas::line(int X0, int Y0, int X1, int Y1, Rgb C) {
  int Steps = std::max({std::abs(X1 - X0), std::abs(Y1 - Y0), 1});
  for (int I = 0; I <= Steps; ++I)
    fill(X0 + (X1 - X0) * I / Steps, Y0 + (Y1 - Y0) * I / Steps, 2, 2, C);
}

} // namespace chart
} // namespace kfuse
