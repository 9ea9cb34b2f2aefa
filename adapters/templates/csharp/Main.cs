// Protocol v1 for memspec (JSON Lines on stdin/stdout) around one handler function.
//
//   mcs -out:build/memory-backend.exe -r:Mono.Posix.dll -r:System.Numerics.dll Main.cs Json.cs Memory.cs
//   memspec check --backend 'mono build/memory-backend.exe {memories}'
//
// Replace Memory.Handle() and Memory.Reset() with your backend; this file only speaks the protocol.
// Json.cs is a minimal JSON reader and writer (the class libraries mono-mcs installs have none).
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

static class Program
{
    static int Main(string[] args)
    {
        string folder = args.Length > 0 ? args[0] : Environment.GetEnvironmentVariable("MEMSPEC_MEMORIES");
        if (folder == null)
        {
            Console.Error.WriteLine("usage: mono memory-backend.exe MEMORIES_FOLDER");
            return 2;
        }
        var memory = new Memory(folder);
        var utf8 = new UTF8Encoding(false);
        var input = new StreamReader(Console.OpenStandardInput(), utf8);
        var output = new StreamWriter(Console.OpenStandardOutput(), utf8);
        for (string line; (line = input.ReadLine()) != null;)
        {
            if (line.Trim().Length == 0) continue;
            object request;
            try
            {
                request = new Json(line).Document();
            }
            catch (FormatException)
            {
                request = null;
            }
            var fields = request as Dictionary<string, object> ?? new Dictionary<string, object>();
            fields.TryGetValue("id", out object id);
            fields.TryGetValue("control", out object control);
            var answer = new Dictionary<string, object> { ["id"] = id };
            if (!(request is Dictionary<string, object>))
            {
                answer["content"] = "Error: the request is not a JSON object";
                answer["is_error"] = true;
            }
            else if (control == null) // a tool call: any JSON value, malformed inputs included, reaches the handler
            {
                fields.TryGetValue("input", out object toolInput);
                var (text, isError) = memory.Handle(toolInput);
                answer["content"] = text;
                answer["is_error"] = isError;
            }
            else if ("reset".Equals(control)) // forget every memory, keep the folder: one process then serves every case
            {
                answer["ok"] = memory.Reset();
            }
            else if ("hello".Equals(control))
            {
                answer["ok"] = true;
                answer["protocol"] = 1;
                answer["backend"] = "csharp template";
            }
            else
            {
                answer["ok"] = false;
            }
            output.Write(Json.Write(answer));
            output.Write('\n');
            output.Flush();
        }
        return 0;
    }
}
