// NumPy's one-character type codes of arrayd's dtypes, as the loop tables
// of op signatures spell them (arrayd.v1.OpSignature.loops, "ff->f"): part
// of the wire contract, so the server and the C++ client read them with this
// one function. Header only, no dependencies (constexpr, usable in templates).
#ifndef ARRAYD_PROTO_TYPE_CODES_H_
#define ARRAYD_PROTO_TYPE_CODES_H_

namespace arrayd {
namespace wire {

// The arrayd.v1.DType value of type code `c`: '?' bool, 'b' 'h' 'i' 'l'
// int8..int64, 'B' 'H' 'I' 'L' uint8..uint64, 'e' 'f' 'd' float16..64,
// 'F' 'D' complex64/128; 'q'/'Q' read as 'l'/'L' (both 64-bit on arrayd's
// platforms). 0 (DTYPE_UNSPECIFIED) for any other character.
constexpr int DTypeOfTypeCode(char c) {
  switch (c) {
    case '?': return 1;
    case 'b': return 2;
    case 'h': return 3;
    case 'i': return 4;
    case 'l':
    case 'q': return 5;
    case 'B': return 6;
    case 'H': return 7;
    case 'I': return 8;
    case 'L':
    case 'Q': return 9;
    case 'e': return 10;
    case 'f': return 11;
    case 'd': return 12;
    case 'F': return 13;
    case 'D': return 14;
    default: return 0;
  }
}

}  // namespace wire
}  // namespace arrayd

#endif  // ARRAYD_PROTO_TYPE_CODES_H_
