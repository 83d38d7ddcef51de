// cxx.cc - C++ hot code in a namespace, a class template and a functor.
//
//   usage: cxx [SECONDS]
//
// main -> sprof::run_matmul<double> -> sprof::Matrix<double>::multiply
// -> sprof::Accumulate::operator(), which takes most of the time.  The
// symbols are mangled (_ZN5sprof6MatrixIdE8multiply...); the profiler must
// show them demangled (tests/engine_cxx.t).
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace sprof {

// A dot product of a row and a strided column.
struct Accumulate {
    __attribute__((noinline)) double operator()(const double *row,
                                                const double *col,
                                                std::size_t n,
                                                std::size_t stride) const
    {
        double sum = 0;
        for (std::size_t k = 0; k < n; k++)
            sum += row[k] * col[k * stride];
        return sum;
    }
};

template <typename T>
class Matrix {
public:
    explicit Matrix(std::size_t n) : n_(n), v_(n * n)
    {
        for (std::size_t i = 0; i < n * n; i++)
            v_[i] = static_cast<T>(i % 7) / 7;
    }

    // this = a * b
    __attribute__((noinline)) void multiply(const Matrix &a, const Matrix &b)
    {
        Accumulate acc;
        for (std::size_t i = 0; i < n_; i++)
            for (std::size_t j = 0; j < n_; j++)
                v_[i * n_ + j] = acc(&a.v_[i * n_], &b.v_[j], n_, n_);
    }

    T at(std::size_t i, std::size_t j) const { return v_[i * n_ + j]; }

private:
    std::size_t n_;
    std::vector<T> v_;
};

static double now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

template <typename T>
__attribute__((noinline)) T run_matmul(double seconds)
{
    Matrix<T> a(64), b(64), c(64);
    double deadline = seconds > 0 ? now() + seconds : 0;
    T check = 0;

    do {
        c.multiply(a, b);
        check += c.at(1, 2);
    } while (deadline == 0 || now() < deadline);
    return check;
}

}  // namespace sprof

int main(int argc, char **argv)
{
    double seconds = 0;

    if (argc > 2) {
        std::fprintf(stderr, "usage: cxx [SECONDS]\n");
        return 2;
    }
    if (argc > 1) {
        char *end = nullptr;
        errno = 0;
        seconds = std::strtod(argv[1], &end);
        if (errno != 0 || end == argv[1] || *end != '\0' || !(seconds >= 0)) {
            std::fprintf(stderr, "cxx: bad duration '%s': give seconds, e.g. 2\n",
                         argv[1]);
            return 2;
        }
    }
    return sprof::run_matmul<double>(seconds) >= 0 ? 0 : 1;
}
