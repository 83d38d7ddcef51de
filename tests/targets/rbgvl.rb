# rbgvl.rb - two Ruby threads that both want the CPU: under the GVL one
# runs Ruby code while the other waits for the lock (Ruby 3.1 hands it
# over every 100 ms timeslice).  Each spins in its own method, gvl_a or
# gvl_b, 6 frames deep.  Prints "ready", then runs for SECONDS (default
# 30).
#
#   /usr/bin/ruby rbgvl.rb [SECONDS]
limit = Process.clock_gettime(Process::CLOCK_MONOTONIC) + Float(ARGV[0] || 30)

def spin(limit)
  x = 0
  x += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) < limit
  x
end

def gvl_a(limit)
  spin(limit)
end

def gvl_b(limit)
  spin(limit)
end

a = Thread.new { gvl_a(limit) }
b = Thread.new { gvl_b(limit) }
$stdout.puts "ready"
$stdout.flush
a.join
b.join
