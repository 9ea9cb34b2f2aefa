// Protocol v1 for memspec (JSON Lines on stdin/stdout) around one handler function.
//
//   javac -d build Main.java Json.java Memory.java && memspec check --backend 'java -cp build Main {memories}'
//
// Replace Memory.handle() and Memory.reset() with your backend; this file only speaks the protocol.
// Java has no JSON in its standard library: Json.java is a minimal reader and writer.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public final class Main {
    public static void main(String[] args) throws IOException {
        String folder = args.length > 0 ? args[0] : System.getenv("MEMSPEC_MEMORIES");
        if (folder == null) {
            System.err.println("usage: java Main MEMORIES_FOLDER");
            System.exit(2);
        }
        if (!"UTF-8".equals(System.getProperty("sun.jnu.encoding"))) {
            System.err.println("warning: file names are not UTF-8 here; run under a UTF-8 locale (env LC_ALL=C.UTF-8)");
        }
        Memory memory = new Memory(folder);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            Map<String, Object> answer = new LinkedHashMap<>();
            Object request;
            try {
                request = new Json(line).document();
            } catch (IllegalArgumentException e) {
                request = null;
            }
            Map<?, ?> fields = request instanceof Map<?, ?> m ? m : Map.of();
            answer.put("id", fields.get("id"));
            Object control = fields.get("control");
            if (!(request instanceof Map)) {
                answer.put("content", "Error: the request is not a JSON object");
                answer.put("is_error", true);
            } else if (control == null) { // a tool call: any JSON value, malformed inputs included, reaches the handler
                Memory.Result result = memory.handle(fields.get("input"));
                answer.put("content", result.text());
                answer.put("is_error", result.isError());
            } else if (control.equals("reset")) { // forget every memory, keep the folder: one process then serves every case
                answer.put("ok", memory.reset());
            } else if (control.equals("hello")) {
                answer.put("ok", true);
                answer.put("protocol", 1);
                answer.put("backend", "java template");
            } else {
                answer.put("ok", false);
            }
            out.write(Json.write(answer));
            out.write('\n');
            out.flush();
        }
    }
}
