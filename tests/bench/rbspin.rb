# rbspin.rb - benchmark target: one Ruby thread doing fixed units of work
# 12 Ruby frames deep (about 60 us each), counting them in slot 0 of the
# progress file (tests/bench/progress.h's layout), which the driver reads
# without stopping it.
#
#   /usr/bin/ruby rbspin.rb PROGRESS_FILE
SLOTS = 128
SLOT = 64
f = File.open(ARGV[0], File::RDWR | File::CREAT, 0o600)
f.truncate(SLOTS * SLOT)

def hot
  x = 0
  i = 0
  while i < 1500
    x += i
    i += 1
  end
  x
end

def level(n)
  n.zero? ? hot : level(n - 1)
end

count = 0
loop do
  level(10)
  count += 1
  f.pwrite([count].pack("Q<"), 0)
end
