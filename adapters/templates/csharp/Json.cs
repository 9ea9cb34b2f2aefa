// A minimal, strict JSON reader (one document) and writer, for Main.cs. JSON values are
// Dictionary<string, object> (objects), List<object> (arrays), string, BigInteger (integers),
// double (other numbers), bool and null.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Numerics;
using System.Text;
using System.Text.RegularExpressions;

sealed class Json
{
    readonly string s;
    int i;

    public Json(string text)
    {
        s = text;
    }

    public object Document()
    {
        object value = Value();
        Space();
        if (i != s.Length) throw new FormatException("trailing characters");
        return value;
    }

    void Space()
    {
        while (i < s.Length && " \t\r\n".IndexOf(s[i]) >= 0) i++;
    }

    char Next()
    {
        if (i >= s.Length) throw new FormatException("unexpected end");
        return s[i++];
    }

    void Expect(string word)
    {
        Space();
        if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0) throw new FormatException("expected " + word);
        i += word.Length;
    }

    bool Skip(char c) // after white space, consumes c if it comes next
    {
        Space();
        if (i < s.Length && s[i] == c)
        {
            i++;
            return true;
        }
        return false;
    }

    object Value()
    {
        Space();
        if (Skip('{'))
        {
            var map = new Dictionary<string, object>();
            if (Skip('}')) return map;
            while (true)
            {
                Expect("\"");
                string key = Text();
                Expect(":");
                map[key] = Value();
                if (Skip('}')) return map;
                Expect(",");
            }
        }
        if (Skip('['))
        {
            var list = new List<object>();
            if (Skip(']')) return list;
            while (true)
            {
                list.Add(Value());
                if (Skip(']')) return list;
                Expect(",");
            }
        }
        if (Skip('"')) return Text();
        if (i < s.Length && s[i] == 't') { Expect("true"); return true; }
        if (i < s.Length && s[i] == 'f') { Expect("false"); return false; }
        if (i < s.Length && s[i] == 'n') { Expect("null"); return null; }
        return Number();
    }

    string Text()
    {
        var b = new StringBuilder();
        for (char c; (c = Next()) != '"';)
        {
            if (c < 0x20) throw new FormatException("control character in a string");
            if (c != '\\')
            {
                b.Append(c);
                continue;
            }
            char e = Next();
            switch (e)
            {
                case '"': case '\\': case '/': b.Append(e); break;
                case 'b': b.Append('\b'); break;
                case 'f': b.Append('\f'); break;
                case 'n': b.Append('\n'); break;
                case 'r': b.Append('\r'); break;
                case 't': b.Append('\t'); break;
                case 'u':
                    if (i + 4 > s.Length) throw new FormatException("bad \\u escape");
                    b.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber));
                    i += 4;
                    break;
                default: throw new FormatException("bad escape");
            }
        }
        return b.ToString();
    }

    object Number()
    {
        int start = i;
        while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
        string text = s.Substring(start, i - start);
        if (!Regex.IsMatch(text, @"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$"))
        {
            throw new FormatException("bad number");
        }
        if (text.IndexOfAny(new[] { '.', 'e', 'E' }) < 0) return BigInteger.Parse(text, CultureInfo.InvariantCulture);
        return double.Parse(text, CultureInfo.InvariantCulture);
    }

    public static string Write(object value)
    {
        var b = new StringBuilder();
        Write(value, b);
        return b.ToString();
    }

    static void Write(object value, StringBuilder b)
    {
        if (value == null)
        {
            b.Append("null");
        }
        else if (value is bool flag)
        {
            b.Append(flag ? "true" : "false");
        }
        else if (value is string str)
        {
            b.Append('"');
            foreach (char c in str)
            {
                if (c == '"') b.Append("\\\"");
                else if (c == '\\') b.Append("\\\\");
                else if (c == '\n') b.Append("\\n");
                else if (c == '\r') b.Append("\\r");
                else if (c == '\t') b.Append("\\t");
                else if (c < 0x20) b.AppendFormat("\\u{0:x4}", (int)c);
                else b.Append(c);
            }
            b.Append('"');
        }
        else if (value is IDictionary<string, object> map)
        {
            b.Append('{');
            string sep = "";
            foreach (var e in map)
            {
                b.Append(sep);
                Write(e.Key, b);
                b.Append(':');
                Write(e.Value, b);
                sep = ",";
            }
            b.Append('}');
        }
        else if (value is IList<object> list)
        {
            b.Append('[');
            for (int k = 0; k < list.Count; k++)
            {
                if (k > 0) b.Append(',');
                Write(list[k], b);
            }
            b.Append(']');
        }
        else
        {
            b.Append(((IFormattable)value).ToString(null, CultureInfo.InvariantCulture)); // a number
        }
    }
}
