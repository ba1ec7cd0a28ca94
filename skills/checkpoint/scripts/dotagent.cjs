#!/usr/bin/env node
// dotagent 0.1.0
"use strict";var r=require("node:fs"),s=require("node:url"),o=require("node:vm"),n=__filename.replace(/\.cjs$/,".mjs"),e;try{e=(0,r.readFileSync)(n)}catch{e=void 0}var t=e===void 0?-1:e.indexOf("/*L*/"),i=t<0?-1:e.indexOf("/*E*/",t);if(i<0)process.stderr.write(`dotagent: ${n} is missing, cut short or edited (${__filename} runs the dotagent.mjs beside it); reinstall dotagent
`),process.exitCode=1;else{let f=e.toString("utf8",t,i),d=e.subarray(0,t).toString("latin1").split(`
`).length-1,a=t-(e.lastIndexOf(`
`,t)+1);new o.Script(f,{filename:n,lineOffset:d,columnOffset:a}).runInThisContext()(require,(0,s.pathToFileURL)(n).href,l=>import(l),e)}
