# rbhot.rb - the Ruby ground truth: three methods take 60%, 30% and 10%
# of the main thread's CPU, alternating every few milliseconds (6, 3 and
# 1 ms of CPU time each round on average), for --cpu seconds of CPU time
# in all.  Each call's length varies at random (0.5 to 1.5 times its
# mean), so no fixed round is in step with a sampler's period.  With
# --threads N it also starts N Thread.new threads, each spinning in its
# own stack (worker -> rb_spin) until the main thread is done.
#
#   /usr/bin/ruby rbhot.rb [--cpu SECONDS] [--log FILE] [--threads N]
#
# It prints "ready" as it starts its calls.  With --log it writes, at the
# end, each method's share of the CPU time the three took
# (CLOCK_THREAD_CPUTIME_ID around each call): "share NAME PERCENT".
cpu = 2.0
log = nil
threads = 0
args = ARGV.dup
until args.empty?
  case args.shift
  when "--cpu" then cpu = Float(args.shift)
  when "--log" then log = args.shift
  when "--threads" then threads = Integer(args.shift)
  end
end

def clock
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
end

def rb_sixty(t)
  stop = clock + t
  x = 0
  x += 1 while clock < stop
  x
end

def rb_thirty(t)
  stop = clock + t
  x = 0
  x += 1 while clock < stop
  x
end

def rb_ten(t)
  stop = clock + t
  x = 0
  x += 1 while clock < stop
  x
end

def rb_spin(done)
  x = 0
  x += 1 until done[0]
  x
end

def worker(done)
  rb_spin(done)
end

done = [false]
workers = Array.new(threads) { Thread.new { worker(done) } }
spent = { rb_sixty: 0.0, rb_thirty: 0.0, rb_ten: 0.0 }
rng = Random.new(19)
rounds = (cpu / 0.010).to_i
$stdout.puts "ready"
$stdout.flush
rounds.times do
  [[:rb_sixty, 0.006], [:rb_thirty, 0.003], [:rb_ten, 0.001]].each do |m, mean|
    t = mean * (0.5 + rng.rand)
    t0 = clock
    send(m, t)
    spent[m] += clock - t0
  end
end
done[0] = true
workers.each(&:join)

if log
  total = spent.values.sum
  File.open(log, "w") do |out|
    spent.each { |name, s| out.printf("share %s %.2f\n", name, 100.0 * s / total) }
  end
end
