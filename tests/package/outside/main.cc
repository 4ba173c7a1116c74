// Uses the installed arrayd C++ client: arange(6).reshape(2, 3).sum(axis=1)
// on the server at argv[1]; prints "3 12".
#include <iostream>
#include <memory>

#include "arrayd/client.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: outside ADDRESS\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<arrayd::Client>> client = arrayd::Client::Connect(argv[1]);
  if (!client.ok()) {
    std::cerr << client.status() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<double>> sums =
      (*client)->Arange(6).Reshape({2, 3}).Astype(arrayd::DType::kFloat64).Sum(1).ToVector<double>();
  if (!sums.ok()) {
    std::cerr << sums.status() << "\n";
    return 1;
  }
  std::cout << (*sums)[0] << " " << (*sums)[1] << "\n";
  return (*sums)[0] == 3 && (*sums)[1] == 12 ? 0 : 1;
}
