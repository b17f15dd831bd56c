//===- Svg.cpp - a small SVG writer for kfuse tune's charts ---------------===//

#include "Svg.h"

#include <cstdio>

namespace kfuse {
namespace svg {

namespace {

/// Coordinates to a tenth of a pixel: enough, and the same on every host.
std::string num(double V) {
  char Buffer[32];
  std::snprintf(Buffer, sizeof Buffer, "%.1f", V);
  return Buffer;
}

std::string colour(Colour C) {
  char Buffer[8];
  std::snprintf(Buffer, sizeof Buffer, "#%02x%02x%02x", C.R, C.G, C.B);
  return Buffer;
}

std::string escaped(const std::string &Text) {
  std::string Out;
  for (char C : Text) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&apos;";
      break;
    default:
      // Control characters are not allowed in XML 1.0.
      if (static_cast<unsigned char>(C) >= 0x20 || C == '\t')
        Out += C;
    }
  }
  return Out;
}

} // namespace

Document::Document(double Width, double Height) : Width(Width), Height(Height) {}

void Document::rect(const char *Class, double X, double Y, double W, double H, Colour Fill) {
  Body << "<rect class=\"" << Class << "\" x=\"" << num(X) << "\" y=\"" << num(Y) << "\" width=\""
       << num(W) << "\" height=\"" << num(H) << "\" fill=\"" << colour(Fill) << "\"/>\n";
}

void Document::hollowRect(const char *Class, double X, double Y, double W, double H,
                          Colour Stroke) {
  Body << "<rect class=\"" << Class << "\" x=\"" << num(X) << "\" y=\"" << num(Y) << "\" width=\""
       << num(W) << "\" height=\"" << num(H) << "\" fill=\"none\" stroke=\"" << colour(Stroke)
       << "\" stroke-width=\"2\"/>\n";
}

void Document::line(const char *Class, double X0, double Y0, double X1, double Y1, Colour Stroke,
                    double Width, bool Dashed) {
  Body << "<line class=\"" << Class << "\" x1=\"" << num(X0) << "\" y1=\"" << num(Y0) << "\" x2=\""
       << num(X1) << "\" y2=\"" << num(Y1) << "\" stroke=\"" << colour(Stroke)
       << "\" stroke-width=\"" << num(Width) << "\"" << (Dashed ? " stroke-dasharray=\"6 4\"" : "")
       << "/>\n";
}

void Document::text(const char *Class, double X, double Y, const std::string &Text, Colour Fill,
                    Anchor A) {
  const char *Anchors[] = {"start", "middle", "end"};
  Body << "<text class=\"" << Class << "\" x=\"" << num(X) << "\" y=\"" << num(Y)
       << "\" text-anchor=\"" << Anchors[static_cast<int>(A)] << "\" fill=\"" << colour(Fill)
       << "\">" << escaped(Text) << "</text>\n";
}

std::string Document::str() const {
  std::ostringstream OS;
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(Width) << "\" height=\""
     << num(Height) << "\" viewBox=\"0 0 " << num(Width) << " " << num(Height)
     << "\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\""
     << num(FontSize) << "\">\n"
     << "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
     << Body.str() << "</svg>\n";
  return OS.str();
}

} // namespace svg
} // namespace kfuse
