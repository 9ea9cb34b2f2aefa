module memspec-template

go 1.19
