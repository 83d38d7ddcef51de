// symtarget_cxx.cc - C++ code at known addresses for tests/symbols.t.
//
//   usage: symtarget-cxx
//
// Prints "KEY VALUE" lines, then "ready", and waits to be killed:
//   spin_ret    a return address inside ns::Widget<int>::step(int), which
//               is inlined into ns::Widget<int>::spin(int); step_line is
//               the line of that call, spin_line the line in spin that
//               step was inlined at
//   twice_ret   a return address inside the function template
//               ns::twice<long>(long); twice_line its line
//   hidden_ret  a return address inside ns::(anonymous namespace)::hidden,
//               which has internal linkage (so no DWARF linkage name);
//               hidden_line its line
#include <cstdio>
#include <unistd.h>

static volatile int sink;
static void *volatile last_ra;
static void *volatile twice_ra;
static void *volatile hidden_ra;
static int step_line, spin_line, twice_line, hidden_line;

__attribute__((noinline)) static void probe(void *volatile *where)
{
    *where = __builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
}

namespace ns {

template <typename T>
struct Widget {
    T acc;

    __attribute__((always_inline)) inline T step(T x)
    {
        T r = x * sink;
        step_line = __LINE__; probe(&last_ra);
        return r + sink;
    }

    __attribute__((noinline)) T spin(T n);
};

template <typename T>
T Widget<T>::spin(T n)
{
    T r;
    spin_line = __LINE__; r = step(n);
    acc += r;
    return acc;
}

template struct Widget<int>;

template <typename T>
__attribute__((noinline)) T twice(T x)
{
    twice_line = __LINE__; probe(&twice_ra);
    return x * 2 + sink;
}

namespace {
__attribute__((noinline)) long hidden(long x)
{
    hidden_line = __LINE__; probe(&hidden_ra);
    return x + sink;
}
}  // namespace

}  // namespace ns

int main()
{
    ns::Widget<int> w{0};
    sink = w.spin(3);
    sink += static_cast<int>(ns::twice<long>(4));
    sink += static_cast<int>(ns::hidden(5));
    std::printf("spin_ret %p\n", last_ra);
    std::printf("step_line %d\n", step_line);
    std::printf("spin_line %d\n", spin_line);
    std::printf("twice_ret %p\n", twice_ra);
    std::printf("twice_line %d\n", twice_line);
    std::printf("hidden_ret %p\n", hidden_ra);
    std::printf("hidden_line %d\n", hidden_line);
    std::printf("ready\n");
    std::fflush(stdout);
    for (;;)
        pause();
}
