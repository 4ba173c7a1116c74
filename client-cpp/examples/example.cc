// arrayd C++ client example: arange(6).reshape(2, 3).astype(float32).sum(axis=1)
// on the server at argv[1] (or $ARRAYD_ADDRESS); prints [3, 12]. Then any
// server ufunc by name through the generic call (arrayd/ops.h): spacing of
// [1, 1000, -1] as float32 prints [1.19209e-07, 6.10352e-05, -1.19209e-07].
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_join.h"
#include "arrayd/client.h"
#include "arrayd/ops.h"

int main(int argc, char** argv) {
  const char* env = std::getenv("ARRAYD_ADDRESS");
  std::string address = argc > 1 ? argv[1] : env != nullptr ? env : "";
  if (address.empty()) {
    std::cerr << "usage: " << argv[0] << " ADDRESS (host:port or unix:/path; or set ARRAYD_ADDRESS)\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<arrayd::Client>> client = arrayd::Client::Connect(address);
  if (!client.ok()) {
    std::cerr << client.status() << "\n";
    return 1;
  }
  arrayd::Array x = (*client)->Arange(6).Reshape({2, 3}).Astype(arrayd::DType::kFloat32).Sum(1);
  absl::StatusOr<std::vector<float>> values = x.ToVector<float>();
  if (!values.ok()) {
    std::cerr << values.status() << "\n";
    return 1;
  }
  std::cout << "[" << absl::StrJoin(*values, ", ") << "]\n";
  arrayd::Array v = (*client)->FromVector<float>({1, 1000, -1});
  arrayd::Array gaps = arrayd::Ufunc("spacing", v);  // float32, from the loop table
  absl::StatusOr<std::vector<float>> spacing = gaps.ToVector<float>();
  if (!spacing.ok()) {
    std::cerr << spacing.status() << "\n";
    return 1;
  }
  std::cout << "[" << absl::StrJoin(*spacing, ", ") << "]\n";
  return 0;
}
