/* prog.c - the source file of tests/ui/example.pb.gz's frames (the
 * example of docs/FORMATS.md), for the source view's screen tests. */
static int b(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; } /* the long line: its end is past column 80, seen only after scrolling right */
static int c(int n) { return n + 1; }
int a(int n) { return b(n) + c(n); }
int main(void) { return a(3) == 0; }
