//! The recipes of `adapters/recipes/`: backends that are not plain classes (a LangChain
//! middleware, an inspect_ai tool, Redis and SQLite stores), each driven through `memspec check`.
