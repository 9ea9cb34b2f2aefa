// A minimal, strict JSON reader (one document) and writer, for Main.java: Java has none in its
// standard library. JSON values are Map (objects), List (arrays), String, BigInteger (integers),
// Double (other numbers), Boolean and null.
import java.math.BigInteger;
import java.util.*;

final class Json {
    private final String s;
    private int i;

    Json(String text) {
        s = text;
    }

    Object document() {
        Object value = value();
        space();
        if (i != s.length()) throw new IllegalArgumentException("trailing characters");
        return value;
    }

    private void space() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
    }

    private char next() {
        if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
        return s.charAt(i++);
    }

    private void expect(String word) {
        space();
        if (!s.startsWith(word, i)) throw new IllegalArgumentException("expected " + word);
        i += word.length();
    }

    private Object value() {
        space();
        char c = next();
        switch (c) {
            case '{': {
                Map<String, Object> map = new LinkedHashMap<>();
                if (skip('}')) return map;
                while (true) {
                    expect("\"");
                    String key = string();
                    expect(":");
                    map.put(key, value());
                    if (skip('}')) return map;
                    expect(",");
                }
            }
            case '[': {
                List<Object> list = new ArrayList<>();
                if (skip(']')) return list;
                while (true) {
                    list.add(value());
                    if (skip(']')) return list;
                    expect(",");
                }
            }
            case '"': return string();
            case 't': i--; expect("true"); return true;
            case 'f': i--; expect("false"); return false;
            case 'n': i--; expect("null"); return null;
            default: i--; return number();
        }
    }

    private boolean skip(char c) { // after white space, consumes c if it comes next
        space();
        if (i < s.length() && s.charAt(i) == c) {
            i++;
            return true;
        }
        return false;
    }

    private String string() {
        StringBuilder b = new StringBuilder();
        for (char c; (c = next()) != '"'; ) {
            if (c < 0x20) throw new IllegalArgumentException("control character in a string");
            if (c != '\\') { b.append(c); continue; }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (i + 4 > s.length()) throw new IllegalArgumentException("bad \\u escape");
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> throw new IllegalArgumentException("bad escape");
            }
        }
        return b.toString();
    }

    private Object number() {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
        String text = s.substring(start, i);
        if (!text.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            throw new IllegalArgumentException("bad number");
        }
        return text.matches("-?[0-9]+") ? new BigInteger(text) : (Object) Double.valueOf(text);
    }

    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(value, b);
        return b.toString();
    }

    private static void write(Object value, StringBuilder b) {
        if (value == null || value instanceof Boolean || value instanceof Number) {
            b.append(value);
        } else if (value instanceof String str) {
            b.append('"');
            for (int k = 0; k < str.length(); k++) {
                char c = str.charAt(k);
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                        else b.append(c);
                    }
                }
            }
            b.append('"');
        } else if (value instanceof Map<?, ?> map) {
            b.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : map.entrySet()) {
                b.append(sep);
                write(String.valueOf(e.getKey()), b);
                b.append(':');
                write(e.getValue(), b);
                sep = ",";
            }
            b.append('}');
        } else if (value instanceof List<?> list) {
            b.append('[');
            String sep = "";
            for (Object item : list) {
                b.append(sep);
                write(item, b);
                sep = ",";
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass());
        }
    }
}
