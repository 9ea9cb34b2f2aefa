# Protocol v1 for memspec (JSON Lines on stdin/stdout) around one handler function.
#
#   memspec check --backend 'ruby adapters/templates/ruby/main.rb {memories}'
#
# Replace handle() and reset() in memory.rb with your backend; this file only speaks the protocol.
require "json"
require_relative "memory"

folder = ARGV[0] || ENV["MEMSPEC_MEMORIES"] or abort("usage: ruby main.rb MEMORIES_FOLDER")
memory = Memory.new(folder)
$stdin.set_encoding(Encoding::UTF_8)
$stdout.set_encoding(Encoding::UTF_8)

$stdin.each_line do |line|
  next if line.strip.empty?
  request = begin
    JSON.parse(line, max_nesting: false)
  rescue JSON::ParserError
    nil
  end
  id = request.is_a?(Hash) ? request["id"] : nil
  answer =
    case request.is_a?(Hash) && request["control"]
    when false
      { "id" => nil, "content" => "Error: the request is not a JSON object", "is_error" => true }
    when nil # a tool call: any JSON value, malformed inputs included, reaches the handler
      text, is_error = memory.handle(request["input"])
      { "id" => id, "content" => text.scrub, "is_error" => is_error }
    when "reset" # forget every memory, keep the folder: one process then serves every case
      ok = begin
        memory.reset
        true
      rescue SystemCallError
        false
      end
      { "id" => id, "ok" => ok }
    when "hello"
      { "id" => id, "ok" => true, "protocol" => 1, "backend" => "ruby template" }
    else
      { "id" => id, "ok" => false }
    end
  $stdout.write(JSON.generate(answer), "\n")
  $stdout.flush
end
