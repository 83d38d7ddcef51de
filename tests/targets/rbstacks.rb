# rbstacks.rb - known Ruby stacks for tests/ruby.t: the main thread sorts
# with a key block that sleeps (a C method, Enumerable#sort_by, calling
# back into Ruby), inside a method of a nested class with a non-ASCII
# name; a Thread.new thread loops (Kernel#loop, Ruby code of
# <internal:kernel>) and sleeps in its own stack.  Prints "ready", then
# runs for SECONDS (default 30).
#
#   /usr/bin/ruby rbstacks.rb [SECONDS]
limit = Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0] || 30)

def slow_key(x)
  sleep 0.002
  x
end

module Outer
  class Inner
    def méthode(limit)
      while Process.clock_gettime(Process::CLOCK_MONOTONIC) < limit
        [3, 1, 2].sort_by { |x| slow_key(x) }
      end
    end
  end
end

def worker_loop
  loop { sleep 0.01 }
end

Thread.new { worker_loop }
$stdout.puts "ready"
$stdout.flush
Outer::Inner.new.méthode(limit)
